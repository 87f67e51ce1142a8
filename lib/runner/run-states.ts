import { InvalidStateTransitionError } from "./errors.ts";

export const RUN_STATES = ["pending", "running", "paused", "cancelling", "cancelled", "degraded", "failed", "completed"] as const;
export type RunState = (typeof RUN_STATES)[number];

/** Every run state by name: code outside this definition names a state (RUN.paused), never spells it. */
export const RUN = Object.fromEntries(RUN_STATES.map((s) => [s, s])) as { readonly [S in RunState]: S };

const moves: Record<RunState, RunState[]> = {
  pending: ["running", "cancelled", "failed"],
  running: ["paused", "cancelling", "cancelled", "degraded", "failed", "completed"],
  paused: ["running", "cancelling", "cancelled", "failed"],
  cancelling: ["cancelled", "failed"],
  degraded: ["failed", "completed"],
  cancelled: [],
  failed: [],
  completed: [],
};

/** States a run never leaves. */
export const TERMINAL_STATES = ["completed", "failed", "cancelled"] as const satisfies readonly RunState[];

/** True for a state a run never leaves (accepts any string, as rows and DTOs hold them). */
export const isTerminal = (s: string): boolean => (TERMINAL_STATES as readonly string[]).includes(s);

/** Moves a run to a new state; throws InvalidStateTransitionError for a move the state machine does not allow. */
export function transition(from: RunState, to: RunState): RunState {
  if (!moves[from].includes(to)) throw new InvalidStateTransitionError(`Illegal run state move ${from} -> ${to}`);
  return to;
}
