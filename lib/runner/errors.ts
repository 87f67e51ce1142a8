/**
 * Every error the runner raises on bad records or illegal use is one of these types, so callers (and the
 * console) can tell corruption from integrity violations from programming errors.
 */
export class AgentRunnerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A stored checkpoint (or what it points to) is missing, malformed or of an unknown version. */
export class AgentCheckpointCorruptionError extends AgentRunnerError {
  constructor(
    message: string,
    readonly key?: string,
  ) {
    super(key ? `${message} (key ${key})` : message);
  }
}

/** A stored effect does not match the call being replayed: same tool call id, different input. */
export class AgentEffectIntegrityError extends AgentRunnerError {}

/** A run state move the state machine does not allow (a bug, never user input). */
export class InvalidStateTransitionError extends AgentRunnerError {}

/** resume() was given a different agent than the one that started the run. */
export class AgentMismatchError extends AgentRunnerError {}

/**
 * This execution no longer holds its run: another worker claimed it (a higher fencing epoch), or the
 * lease could not be renewed. Nothing more may be written; the run goes on wherever it was taken over.
 */
export class LeaseLostError extends AgentRunnerError {}

/** A checkpoint write failed; the run must not report it as saved. */
export class CheckpointWriteError extends AgentRunnerError {
  constructor(
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** A decision that cannot be applied (unknown, decided, expired, stale, forbidden); `code` says which. */
export class ApprovalDecisionError extends AgentRunnerError {
  constructor(
    message: string,
    readonly code: "not_found" | "already_decided" | "invalid_args" | "expired" | "forbidden" | "stale",
    readonly field?: string,
  ) {
    super(message);
  }
}

/** A failed model call; `retryable` decides whether the retry/fallback chain tries again. */
export class ModelCallError extends AgentRunnerError {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Retry or fork was asked of a run (or checkpoint) that cannot be continued that way. */
export class RunRewindError extends AgentRunnerError {}
