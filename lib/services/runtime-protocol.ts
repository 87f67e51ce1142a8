// The runtime protocol (v1): an external agent runtime (OpenAI Agents JS, LangGraph, an MCP client, AFK
// itself) registers its runs here, parks its interrupts in this console's inbox and gets the decisions
// back. A run is a Run row marked external; an interrupt is an approval record written by the runner's
// own functions (lib/runner/approvals.ts), so routing, quorum, deadlines, separation of duties, the
// argsHash 409, audit, the pause webhook and corruption isolation apply as they do to our own runs. The
// runtime keeps its own state; the console keeps requests and decisions, and hands each decision to one
// claimant (runtime-claim.ts). Our workers never execute an external run (lib/db/runs.ts refuses to
// reserve one). A runtime token acts only on the runs it registered; revoking it ends its access at once.
import "server-only";
import { randomUUID } from "node:crypto";
import {
  ConflictError,
  CorruptRecordError,
  DecisionConflictError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from "../auth/errors.ts";
import { onAccessChanged } from "../auth/revocation.ts";
import { type RuntimeCaller, runtimeActorId } from "../auth/tokens.ts";
import type { AppContext } from "../context.ts";
import { userByEmail } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { getRunRow, lockRun } from "../db/runs.ts";
import { claimsOf, createExternalRun, externalRunByExternalId, setExternalRunState, updateExternalRunLabels } from "../db/runtime.ts";
import { PrismaStore } from "../db/store.ts";
import {
  decisionsQuerySchema,
  type InterruptInput,
  interruptBatchSchema,
  type ParkedInterruptsDto,
  type RuntimeDecisionsDto,
  runtimeRunSchema,
  toRuntimeRunDto,
} from "../dto-protocol.ts";
import { log } from "../log.ts";
import {
  type ApprovalRecord,
  argsHash,
  createApprovalRequest,
  type ExternalDecision,
  isTerminal,
  listApprovals,
  RUN,
  schemaProblem,
} from "../runner/index.ts";
import { parseOr400 } from "../validation.ts";
import { notifyPaused } from "../webhooks/pause.ts";
import type { RunRow } from "./access.ts";
import { onRun } from "./run-view.ts";
import { decisionsAfter, decodeDecisionCursor } from "./runtime-view.ts";

export type Ctx = Pick<AppContext, "db" | "store" | "live" | "webhook">;

export const auditActor = (c: RuntimeCaller) => ({ id: runtimeActorId(c), email: `token:${c.name}` });

export function caller(c: RuntimeCaller | null): RuntimeCaller {
  if (!c) throw new UnauthorizedError("A runtime token is required (an admin creates one with role runtime)");
  return c;
}

/** A run this token registered; any other run is as invisible as one that does not exist. */
export async function ownRun(ctx: Pick<Ctx, "db">, c: RuntimeCaller, runId: string): Promise<RunRow> {
  const run = await getRunRow(ctx.db, runId);
  if (!run || run.runtimeTokenId !== c.tokenId) throw new NotFoundError("No such run");
  return run;
}

// ---- Runs ----

export async function registerRun(ctx: Ctx, c: RuntimeCaller | null, { body }: { body: unknown }) {
  const { db } = ctx;
  const who = caller(c);
  const input = parseOr400(runtimeRunSchema, body);
  const user = input.actsFor ? await userByEmail(db, input.actsFor) : null;
  if (input.actsFor && (!user || user.disabled)) throw new ValidationError("actsFor", "No such active user");
  const labels = input.labels ?? {};
  const metadata = input.metadata ?? {};
  const again = async () => {
    const run = await externalRunByExternalId(db, who.tokenId, input.externalId);
    if (!run) return null;
    if (run.agentName !== input.agent || run.framework !== input.framework || run.submittedByEmail !== (user?.email ?? null))
      throw new ConflictError("This externalId was registered for another agent, framework or user");
    await updateExternalRunLabels(db, run.id, labels, metadata);
    return toRuntimeRunDto({ ...run, labels: JSON.stringify(labels), metadata: JSON.stringify(metadata) }, false);
  };
  const earlier = await again();
  if (earlier) return earlier;
  const id = randomUUID();
  try {
    await transaction(db, async (tx) => {
      await createExternalRun(tx, {
        id,
        tokenId: who.tokenId,
        externalId: input.externalId,
        agentName: input.agent,
        framework: input.framework,
        labels,
        metadata,
        input: input.input ?? null,
        submittedById: user?.id ?? null,
        submittedByEmail: user?.email ?? null,
      });
      await appendAudit(tx, {
        actor: auditActor(who),
        action: "runtime.register",
        targetType: "run",
        targetId: id,
        data: { framework: input.framework, agent: input.agent, external_id: input.externalId, acts_for: user?.email ?? null },
      });
    });
  } catch (e) {
    // Two registrations of one run raced: the other one created it.
    const raced = isUniqueViolation(e) ? await again() : null;
    if (raced) return raced;
    throw e;
  }
  ctx.live.publish({ topic: "run", runId: id });
  return toRuntimeRunDto((await getRunRow(db, id)) as RunRow, true);
}

export async function getRuntimeRun(ctx: Ctx, c: RuntimeCaller | null, { runId }: { runId: string }) {
  return toRuntimeRunDto(await ownRun(ctx, caller(c), runId), false);
}

// ---- Interrupts ----

const DEFAULT_DECISIONS: Record<"tool" | "question", ExternalDecision[]> = {
  tool: ["approve", "edit", "reject"],
  question: ["respond", "reject"],
};

export const interruptIdOf = (a: ApprovalRecord) => a.external?.interrupt_id ?? a.tool_call_id;

function approvalOf(run: RunRow, i: InterruptInput, step: number, batchId: string | null, now: number) {
  const question = i.kind === "question";
  const args = question ? { question: i.message ?? "" } : (i.action?.args ?? {});
  return {
    kind: i.kind,
    run_id: run.id,
    root_run_id: run.id,
    thread_id: run.threadId,
    step,
    tool_call_id: i.id,
    tool_name: i.action?.name ?? "request_user_input",
    agent_name: run.agentName,
    agent_path: run.agentName,
    args,
    input_hash: argsHash(args),
    reason: i.message ?? "",
    rule_id: null,
    quorum: i.quorum,
    groups: i.groups ?? [],
    requested_at_ms: now,
    deadline_ms: i.timeoutS ? now + i.timeoutS * 1000 : null,
    fallback: i.onExpiry,
    requested_by: run.submittedByEmail,
    external: {
      interrupt_id: i.id,
      batch_id: batchId,
      call_id: i.action?.callId ?? null,
      decisions: [...new Set(i.decisions ?? DEFAULT_DECISIONS[i.kind])],
      args_schema: i.argsSchema ?? null,
      response_schema: i.responseSchema ?? null,
      metadata: i.metadata ?? {},
    },
  };
}

// What a parked interrupt asks: its kind, tool and arguments (a question's are its message).
const requestHash = (a: Pick<ApprovalRecord, "kind" | "tool_name" | "args">) => argsHash({ kind: a.kind, tool: a.tool_name, args: a.args });

/** An interrupt as it was parked (the current state of a 409 on a re-park that asks something else). */
export const storedInterrupt = (a: ApprovalRecord) => ({
  interruptId: interruptIdOf(a),
  approvalId: a.id,
  batchId: a.external?.batch_id ?? null,
  kind: a.kind,
  status: a.status,
  action: { name: a.tool_name, args: a.args },
  message: a.reason,
});

// The console checks decisions with the runtime's schemas: one it cannot compile is refused here, where the
// runtime can still fix it, not when a reviewer decides (400 naming the interrupt and the schema's path).
function compilable(i: InterruptInput, n: number) {
  for (const [key, schema] of [
    ["argsSchema", i.argsSchema],
    ["responseSchema", i.responseSchema],
  ] as const) {
    const problem = schema ? schemaProblem(schema) : null;
    if (problem)
      throw new ValidationError(
        [`interrupts.${n}.${key}`, problem.path].filter(Boolean).join("."),
        `Interrupt ${i.id}: its ${key}${problem.path ? ` at ${problem.path}` : ""} cannot be compiled (${problem.message})`,
      );
  }
}

/**
 * Parks one step's interrupts (idempotent by each interrupt's id: one parked before is returned as it
 * stands; the same id asking other arguments is a 409 with it, and the batch parks nothing). The step's
 * requests, the run's pause and the audit entry commit together; then every inbox refetches and the pause
 * webhook goes out.
 */
export async function parkInterrupts(ctx: Ctx, c: RuntimeCaller | null, { runId, body }: { runId: string; body: unknown }) {
  const { db } = ctx;
  const who = caller(c);
  const input = parseOr400(interruptBatchSchema, body);
  const ids = input.interrupts.map((i) => i.id);
  const dup = ids.find((id, n) => ids.indexOf(id) !== n);
  if (dup) throw new ValidationError("interrupts", `Interrupt ${dup} is listed twice`);
  input.interrupts.forEach(compilable);
  const run = await ownRun(ctx, who, runId);
  if (run.corruptKey) throw new CorruptRecordError(`A record of run ${run.id} could not be read`, run.corruptKey);
  const now = Date.now();
  const { parked, fresh, state } = await onRun(db, run.id, () =>
    transaction(db, async (tx) => {
      await lockRun(tx, run.id);
      const current = (await getRunRow(tx, run.id)) ?? run;
      if (isTerminal(current.state)) throw new ConflictError(`Run is ${current.state}; it takes no more interrupts`);
      const store = new PrismaStore(tx);
      const existing = await listApprovals(store, run.threadId, run.id);
      const byId = new Map(existing.map((a) => [interruptIdOf(a), a]));
      // One batch is one step: a retry lands in the step it landed in before, a new batch in the next one.
      const known = ids.map((id) => byId.get(id)).find((a) => a !== undefined);
      const sameBatch = input.batchId ? existing.find((a) => a.external?.batch_id === input.batchId) : undefined;
      const step = known?.step ?? sameBatch?.step ?? (existing.length ? Math.max(...existing.map((a) => a.step)) + 1 : 0);
      const batchId = input.batchId ?? known?.external?.batch_id ?? null;
      const parked: ParkedInterruptsDto["interrupts"] = [];
      const fresh: ApprovalRecord[] = [];
      for (const i of input.interrupts) {
        const had = byId.get(i.id);
        // The same id asking something else is another request, not a retry: it keeps what was parked.
        if (had && requestHash(had) !== requestHash(approvalOf(run, i, step, batchId, now)))
          throw new DecisionConflictError(`Interrupt ${i.id} was parked before with other arguments`, storedInterrupt(had));
        const rec = had ?? (await createApprovalRequest(store, approvalOf(run, i, step, batchId, now)));
        if (!had) fresh.push(rec);
        parked.push({ interruptId: i.id, approvalId: rec.id, batchId: rec.external?.batch_id ?? null, status: rec.status, created: !had });
      }
      let state = current.state;
      if (fresh.length) {
        state = RUN.paused;
        await setExternalRunState(tx, run.id, { state });
        await appendAudit(tx, {
          actor: auditActor(who),
          action: "runtime.interrupt",
          targetType: "run",
          targetId: run.id,
          data: { approval_ids: fresh.map((a) => a.id), batch_id: batchId, tools: fresh.map((a) => a.tool_name) },
        });
      }
      return { parked, fresh, state };
    }),
  );
  if (fresh.length) {
    ctx.live.publish({ topic: "inbox" });
    ctx.live.publish({ topic: "run", runId: run.id, state });
    if (ctx.webhook)
      await notifyPaused(
        db,
        ctx.webhook,
        run.id,
        fresh.map((a) => a.id),
      ).catch((e) => log.warn("pause webhook failed", { run_id: run.id, error: String(e) }));
  }
  return { runId: run.id, state, interrupts: parked } satisfies ParkedInterruptsDto;
}

// ---- Decisions ----

async function readDecisions(ctx: Ctx, runId: string, cursor: string | null): Promise<RuntimeDecisionsDto> {
  const run = await getRunRow(ctx.db, runId);
  if (!run) throw new NotFoundError("No such run");
  const approvals = await onRun(ctx.db, run.id, () => listApprovals(ctx.store, run.threadId, run.id));
  return { runId: run.id, state: run.state, ...decisionsAfter(approvals, await claimsOf(ctx.db, run.id), cursor) };
}

// A decision's live message is a hint; if one is lost, the held request still reads again this often.
const SAFETY_POLL_MS = 2_000;

/**
 * The run's decisions after the cursor. With wait, the request is held (at most 50 s, under common 60 s
 * client timeouts) until a decision is taken on any instance — the live bus wakes it (LISTEN/NOTIFY on
 * PostgreSQL) — or the run ends. A held request lives as long as its token, as an event stream does
 * (lib/services/live-events.ts): each time it wakes it asks `recheck` (the credential again; routes pass it) before
 * it answers, and the token's revocation notice wakes it at once, so it answers 401 and hands out nothing
 * decided after the revocation.
 */
export async function listDecisions(
  ctx: Ctx,
  c: RuntimeCaller | null,
  { runId, query, signal, recheck }: { runId: string; query: unknown; signal?: AbortSignal; recheck?: () => Promise<RuntimeCaller | null> },
): Promise<RuntimeDecisionsDto> {
  const who = caller(c);
  const q = parseOr400(decisionsQuerySchema, query);
  if (q.cursor) decodeDecisionCursor(q.cursor);
  const run = await ownRun(ctx, who, runId);
  const until = Date.now() + (q.wait ?? 0) * 1000;
  let changed = false;
  let held = false;
  let wake = () => {};
  const unsubscribe = ctx.live.subscribe((m) => {
    if (m.topic !== "run" || m.runId !== run.id) return;
    changed = true;
    wake();
  });
  const unwatch = onAccessChanged(ctx.live, runtimeActorId(who), () => wake());
  try {
    for (;;) {
      changed = false;
      const page = await readDecisions(ctx, run.id, q.cursor ?? null);
      // Asked after the read began, so a decision read after the revocation committed is never sent.
      if (held && recheck && !(await recheck())) throw new UnauthorizedError("The runtime token was revoked");
      const left = until - Date.now();
      if (page.decisions.length || left <= 0 || signal?.aborted || isTerminal(page.state)) return page;
      if (changed) continue;
      held = true;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          wake = () => {};
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, SAFETY_POLL_MS));
        wake = done;
        signal?.addEventListener("abort", done, { once: true });
      });
    }
  } finally {
    unsubscribe();
    unwatch();
  }
}
