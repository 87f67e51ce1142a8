// The Run row's moves between states: the one table the lease SQL (lib/db/runs.ts) is built from. The
// states themselves and the moves a run makes while it executes are the runner's (lib/runner/run-states.ts:
// RUN_STATES, RUN, transition()); this is the row's side. Every move is a compare-and-set on the row's
// state, so of two processes making one, exactly one wins. Outside this table and the runner, code names a
// state (RUN.paused) and never spells it (tests/meta/run-states.test.ts). No server-only imports.
import type { RunState } from "../runner/index.ts";

/** The lease owner of a reserved run: its job waits in the queue (or is being claimed). */
export const QUEUED = "queued";

export type RowMove = { readonly from: readonly RunState[]; readonly to: readonly RunState[] };

/** Which states each move of the row starts from and may end in. */
export const ROW_MOVES = {
  /** A new run's row (a start, a fork): its execution is not reserved yet. */
  create: { from: [], to: ["pending"] },
  /** An external run, registered by its runtime (which executes it: nothing here reserves or takes it over). */
  register: { from: [], to: ["running"] },
  /** Reserve an execution (start, resume, retry, a cancellation to record): owned by QUEUED, new epoch. */
  reserve: { from: ["pending", "paused", "failed"], to: ["running"] },
  /** Take over a running run whose lease expired (or, after a restart of the one instance, any): QUEUED again. */
  takeOver: { from: ["running"], to: ["running"] },
  /** A worker claims a reservation (owner QUEUED) and executes under its epoch: progress, renewals, the cancel flag. */
  hold: { from: ["running"], to: ["running"] },
  /** The execution's outcome, written by the lease holder (a worker that lost its lease writes nothing). */
  finish: { from: ["running"], to: ["paused", "degraded", "completed", "failed", "cancelled"] },
  /** A run with no execution to finish it: its agent is gone, a retry found its outcome durable. */
  settle: { from: ["pending", "running", "paused", "failed"], to: ["running", "completed", "failed", "cancelled"] },
  /** An external run as its runtime reports it: parked interrupts pause it, a report or a cancellation ends it. */
  report: { from: ["running", "paused"], to: ["running", "paused", "completed", "failed", "cancelled"] },
  /** What the previous process of the one embedded instance left to execute (recover after a restart). */
  recover: { from: ["pending", "running"], to: ["running"] },
} as const satisfies Record<string, RowMove>;

export type RowMoveName = keyof typeof ROW_MOVES;

/** States a run is in while something is still to happen to it (the health check counts them). */
export const LIVE_STATES = ["pending", "running", "paused"] as const satisfies readonly RunState[];

/** The states a runtime reports for its own run (lib/dto-protocol.ts): running, or how it ended. */
export const REPORTED_STATES = ["running", "completed", "failed", "cancelled"] as const satisfies readonly RunState[];

/** Whether `state` is one the move starts from. */
export const movesFrom = (move: RowMoveName, state: string): state is RunState =>
  (ROW_MOVES[move].from as readonly string[]).includes(state);

/** The one state a move ends in (throws for a move with several: its caller names which). */
export function targetOf(move: RowMoveName): RunState {
  const to = ROW_MOVES[move].to as readonly RunState[];
  if (to.length !== 1) throw new Error(`Row move ${move} ends in one of ${to.join(", ")}: name which`);
  return to[0];
}

/** The state a move ends in, checked against the table. */
export function moveTo(move: RowMoveName, to: RunState): RunState {
  if (!(ROW_MOVES[move].to as readonly RunState[]).includes(to)) throw new Error(`Row move ${move} does not end in ${to}`);
  return to;
}
