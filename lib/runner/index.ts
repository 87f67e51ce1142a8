export * from "./agent.ts";
export * from "./approvals.ts";
export type { ApprovalRow, ApprovalStore, StoredApproval } from "./approval-port.ts";
export { approvalName, approvalStoreOf } from "./approval-store.ts";
export * from "./external.ts";
export * from "./ask.ts";
export * from "./canonical.ts";
export * from "./checkpoint.ts";
export * from "./demo-model.ts";
export * from "./effects.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./fork.ts";
export * from "./ids.ts";
export * from "./lookups.ts";
export * from "./messages.ts";
export * from "./model.ts";
export * from "./policy.ts";
export * from "./result.ts";
export * from "./resume.ts";
export {
  Runner,
  DEFAULT_RUNNER_CONFIG,
  type RunnerConfig,
  type RunHandle,
  type RunOptions,
  type ResumeOptions,
} from "./runner.ts";
export type { AroundChild, ChildExecution } from "./config.ts";
export * from "./runtime-snapshot.ts";
export { WINDOW_STEPS } from "./record-codec.ts";
export { windowsToRead } from "./record-read.ts";
export * from "./run-states.ts";
export * from "./store.ts";
export * from "./tools.ts";
export * from "./versions.ts";
export * from "./failpoints.ts";
export { StoredValueSyntaxError, listStored, parseStoredText, readStored } from "./read.ts";
