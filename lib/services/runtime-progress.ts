// The runtime protocol's progress reports (messages, tool results, phases, states: the run page's
// conversation and header for a run this console does not execute) and an operator's cancel of an external
// run. A terminal state, reported or cancelled, closes every interrupt still pending.
import "server-only";
import { ConflictError } from "../auth/errors.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import { getRunRow, lockRun } from "../db/runs.ts";
import { appendRuntimeEvents, setExternalRunState } from "../db/runtime.ts";
import { PrismaStore } from "../db/store.ts";
import { closePendingApprovals, isTerminal, RUN } from "../runner/index.ts";
import { parseOr400 } from "../validation.ts";
import type { RunRow } from "./access.ts";
import { onRun } from "./run-view.ts";
import type { RuntimeCaller } from "../auth/tokens.ts";
import { type Ctx, auditActor, caller, ownRun } from "./runtime-protocol.ts";
import { runtimeEventsSchema } from "../dto-protocol.ts";

/**
 * What the runtime reports: messages and tool results (the run page's conversation), phases and states.
 * A terminal state closes every interrupt still pending (expired, so it leaves every inbox).
 */
export async function reportEvents(ctx: Ctx, c: RuntimeCaller | null, { runId, body }: { runId: string; body: unknown }) {
  const { db } = ctx;
  const who = caller(c);
  const { events } = parseOr400(runtimeEventsSchema, body);
  const run = await ownRun(ctx, who, runId);
  const now = Date.now();
  const result = await onRun(db, run.id, () =>
    transaction(db, async (tx) => {
      await lockRun(tx, run.id);
      const current = (await getRunRow(tx, run.id)) ?? run;
      const accepted = await appendRuntimeEvents(
        tx,
        run.id,
        events.map((e) => ({ type: e.type, clientId: e.id ?? null, data: e })),
      );
      const phase = events.filter((e) => e.type === "phase").at(-1);
      const stated = events.filter((e) => e.type === "state").at(-1);
      if (stated && isTerminal(current.state) && stated.state !== current.state)
        throw new ConflictError(`Run is ${current.state}; it cannot become ${stated.state}`);
      let closed = 0;
      let state = current.state;
      if (stated && !isTerminal(current.state)) {
        state = stated.state;
        if (isTerminal(state)) {
          closed = await closePendingApprovals(new PrismaStore(tx), run.threadId, run.id, now, `The runtime ended the run (${state})`);
          await appendAudit(tx, {
            actor: auditActor(who),
            action: `runtime.${state}`,
            targetType: "run",
            targetId: run.id,
            data: { error: stated.error ?? null, closed },
          });
        }
      }
      if (phase || state !== current.state)
        await setExternalRunState(tx, run.id, {
          ...(phase ? { phase: phase.phase, ...(phase.step !== undefined ? { step: phase.step } : {}) } : {}),
          ...(state !== current.state
            ? { state, ...(isTerminal(state) ? { finishedAt: new Date(now), error: stated?.error ?? null } : {}) }
            : {}),
        });
      return { runId: run.id, state, accepted, closed };
    }),
  );
  ctx.live.publish({ topic: "run", runId: run.id, state: result.state });
  if (result.closed) ctx.live.publish({ topic: "inbox" });
  return result;
}

// ---- An operator's cancel ----

/** Cancels an external run from the console: its pending interrupts close and its runtime reads the state. */
export async function cancelExternalRun(ctx: Ctx, actor: { id: string; email: string }, run: RunRow) {
  const now = Date.now();
  const closed = await onRun(ctx.db, run.id, () =>
    transaction(ctx.db, async (tx) => {
      await lockRun(tx, run.id);
      const current = (await getRunRow(tx, run.id)) ?? run;
      if (isTerminal(current.state)) throw new ConflictError(`Run is ${current.state}`);
      const n = await closePendingApprovals(new PrismaStore(tx), run.threadId, run.id, now, `Cancelled by ${actor.email}`);
      await setExternalRunState(tx, run.id, { state: RUN.cancelled, finishedAt: new Date(now) });
      await appendAudit(tx, {
        actor,
        action: "run.cancel",
        targetType: "run",
        targetId: run.id,
        data: { from_state: current.state, closed: n },
      });
      return n;
    }),
  );
  ctx.live.publish({ topic: "run", runId: run.id, state: RUN.cancelled });
  if (closed) ctx.live.publish({ topic: "inbox" });
  return { id: run.id, cancelling: true as const };
}
