import { InvalidStateTransitionError } from "./errors.ts";

export const RUN_STATES = ["pending", "running", "paused", "cancelling", "cancelled", "degraded", "failed", "completed"] as const;
export type RunState = (typeof RUN_STATES)[number];

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

export const isTerminal = (s: RunState) => s === "cancelled" || s === "failed" || s === "completed";

export function transition(from: RunState, to: RunState): RunState {
  if (!moves[from].includes(to)) throw new InvalidStateTransitionError(`Illegal run state move ${from} -> ${to}`);
  return to;
}
