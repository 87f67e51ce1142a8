// What a phase of the loop tells the loop to do next (as openai-agents-js's NextStep). A phase that fails
// the run throws; the execution turns the error into the failed result.
export type NextStep =
  /** Go on: the next phase of this step, or the next step. */
  | { type: "run_again" }
  /** Wait durably for these approval requests (or a subagent's) to be decided. */
  | { type: "pause"; approvalIds: string[] }
  /** End the run in this state. */
  | { type: "finish"; state: "completed" | "cancelled" };

export const RUN_AGAIN: NextStep = { type: "run_again" };
