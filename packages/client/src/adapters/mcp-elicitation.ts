// MCP elicitation through the runtime protocol: an MCP client's handler for a server's
// `elicitation/create` (form mode) that parks it as a question — its message, its requested schema as the
// answer form — and answers with the reviewer's decision: respond → accept with the answer, reject →
// decline, expire (deadline, run ended) → cancel.
// Each answer is claimed by the bridge's claimant before it is delivered, and reported delivered, so it
// reaches one request only: the same question asked again (the default id repeats across processes) finds
// its old interrupt delivered to another claimant and is parked anew; a bridge restarted with the same
// claimant, or any bridge finding a decision nobody claimed, delivers that one. The question waits as long
// as the server's request does: while it waits the bridge sends progress notifications (when the server
// asked for them, with resetTimeoutOnProgress), and when the server gives up (its timeout, a cancel) the
// request's signal aborts and the bridge withdraws the question from every inbox.
import { createHash } from "node:crypto";
import type { ElicitRequest, ElicitResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { ClaimedByAnotherError, newClaimant, type RuntimeClient, type RuntimeDecision } from "../index.ts";

export const FRAMEWORK = "mcp";

export type BridgeOptions = {
  /** The interrupt id of a request (default: a hash of its message and schema, numbered per bridge). */
  idOf?: (params: ElicitRequest["params"], n: number) => string;
  groups?: string[];
  timeoutS?: number;
  /** How long each long-poll is held (seconds, ≤ 50). */
  waitS?: number;
  /** Who claims the answers (default: a new claimant per bridge). A bridge restarted with the same one gets an answer it claimed and never delivered. */
  claimant?: string;
  /** Seconds a claimed answer stays this bridge's if it dies before delivering it (default 60). */
  leaseS?: number;
  /** How often a progress notification goes out while a question waits, when the server asked for them (ms, default 10 000). */
  progressEveryMs?: number;
};

type Extra = {
  signal?: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification?: (n: ServerNotification | { method: "notifications/progress"; params: Record<string, unknown> }) => Promise<void>;
};

const defaultId = (params: ElicitRequest["params"], n: number) =>
  `elicit-${createHash("sha256")
    .update(JSON.stringify([params.message, "requestedSchema" in params ? params.requestedSchema : null]))
    .digest("hex")
    .slice(0, 16)}-${n}`;

const resultOf = (d: RuntimeDecision): ElicitResult =>
  d.decision === "respond"
    ? { action: "accept", content: (d.answer ?? {}) as ElicitResult["content"] }
    : d.decision === "reject"
      ? { action: "decline" }
      : { action: "cancel" };

// Progress notifications while the question waits: the server's resetTimeoutOnProgress restarts its timeout
// on each (only when its request carries a progressToken, i.e. the server passed onprogress).
function keepAlive(extra: Extra | undefined, everyMs: number): () => void {
  const token = extra?._meta?.progressToken;
  if (token === undefined || !extra?.sendNotification) return () => {};
  let progress = 0;
  const timer = setInterval(() => {
    void extra.sendNotification?.({
      method: "notifications/progress",
      params: { progressToken: token, progress: ++progress, message: "Waiting for a reviewer in the console" },
    });
  }, everyMs);
  return () => clearInterval(timer);
}

/** The handler to register with client.setRequestHandler(ElicitRequestSchema, …). */
export function elicitationBridge(client: RuntimeClient, runId: string, opts: BridgeOptions = {}) {
  let n = 0;
  const claimant = opts.claimant ?? newClaimant();
  return async (request: ElicitRequest, extra?: Extra): Promise<ElicitResult> => {
    const params = request.params;
    // URL mode sends the user to a page of the server's: nothing a reviewer here can answer.
    if (params.mode === "url" || !("requestedSchema" in params)) return { action: "decline" };
    const base = (opts.idOf ?? defaultId)(params, n++);
    const stop = keepAlive(extra, opts.progressEveryMs ?? 10_000);
    let id = base;
    try {
      // An interrupt of this id delivered to another request: the question is asked again under the next id.
      for (let again = 1; ; again++) {
        await client.parkInterrupts(runId, {
          interrupts: [
            {
              id,
              kind: "question",
              message: params.message,
              responseSchema: params.requestedSchema as never,
              decisions: ["respond", "reject"],
              ...(opts.groups ? { groups: opts.groups } : {}),
              ...(opts.timeoutS ? { timeoutS: opts.timeoutS } : {}),
            },
          ],
        });
        await client.waitForDecisions(runId, [id], { waitS: opts.waitS ?? 30, signal: extra?.signal });
        let decision: RuntimeDecision;
        try {
          decision = await client.claim(runId, id, { claimant, leaseS: opts.leaseS ?? 60 });
        } catch (e) {
          if (!(e instanceof ClaimedByAnotherError)) throw e;
          id = `${base}.${again}`;
          continue;
        }
        const result = resultOf(decision);
        // Delivered: the claim is final (it never passes to another claimant after its lease).
        await client
          .report(runId, [{ type: "tool_result", id: `${id}:delivered`, callId: id, name: "elicitation/create", output: result }])
          .catch(() => undefined);
        return result;
      }
    } catch (e) {
      // The server's request ended (its timeout or a cancel): the question leaves every inbox.
      if (extra?.signal?.aborted) await client.withdraw(runId, id, "The MCP request was cancelled or timed out").catch(() => undefined);
      throw e;
    } finally {
      stop();
    }
  };
}
