// MCP elicitation through the runtime protocol: an MCP client's handler for a server's
// `elicitation/create` (form mode) that parks it as a question — its message, its requested schema as the
// answer form — and answers with the reviewer's decision: respond → accept with the answer, reject →
// decline, expire (deadline, run ended) → cancel. The question waits in the console as long as the server
// waits for it (the bridge itself sets no time limit: give the server's elicitInput a timeout that fits a
// person, or resetTimeoutOnProgress); a bridge restarted with the same ids finds the question parked
// before and its decision (parking and claiming are idempotent and exactly-once).
import { createHash } from "node:crypto";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { RuntimeClient } from "../index.ts";

export const FRAMEWORK = "mcp";

export type BridgeOptions = {
  /** The interrupt id of a request (default: a hash of its message and schema, numbered per bridge). */
  idOf?: (params: ElicitRequest["params"], n: number) => string;
  groups?: string[];
  timeoutS?: number;
  /** How long each long-poll is held (seconds, ≤ 50). */
  waitS?: number;
};

const defaultId = (params: ElicitRequest["params"], n: number) =>
  `elicit-${createHash("sha256")
    .update(JSON.stringify([params.message, "requestedSchema" in params ? params.requestedSchema : null]))
    .digest("hex")
    .slice(0, 16)}-${n}`;

/** The handler to register with client.setRequestHandler(ElicitRequestSchema, …). */
export function elicitationBridge(client: RuntimeClient, runId: string, opts: BridgeOptions = {}) {
  let n = 0;
  return async (request: ElicitRequest, extra?: { signal?: AbortSignal }): Promise<ElicitResult> => {
    const params = request.params;
    // URL mode sends the user to a page of the server's: nothing a reviewer here can answer.
    if (params.mode === "url" || !("requestedSchema" in params)) return { action: "decline" };
    const id = (opts.idOf ?? defaultId)(params, n++);
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
    const { decision } = await client.claim(runId, id);
    if (decision.decision === "respond") return { action: "accept", content: (decision.answer ?? {}) as ElicitResult["content"] };
    if (decision.decision === "reject") return { action: "decline" };
    return { action: "cancel" };
  };
}
