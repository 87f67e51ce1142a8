import { SCHEMA_VERSIONS, type SchemaVersion } from "./versions.ts";
import type { RunState } from "./run-states.ts";

export const EVENT_SCHEMA_VERSION = SCHEMA_VERSIONS.event;

export type RunEventType =
  | "run_started"
  | "step_started"
  | "policy_decision"
  | "llm_called"
  | "llm_delta"
  | "llm_completed"
  | "tool_batch_started"
  | "tool_completed"
  | "tool_deferred"
  | "subagent_started"
  | "subagent_completed"
  | "checkpoint"
  | "run_paused"
  | "run_resumed"
  | "run_cancelled"
  | "run_failed"
  | "run_completed"
  | "warning";

/** One event of a running run, as its handle streams them (checkpoint, step, llm, tool, approval, terminal). */
export type RunEvent = {
  type: RunEventType;
  runId: string;
  threadId: string;
  state: RunState;
  step: number;
  message: string;
  data: Record<string, unknown>;
  schemaVersion: SchemaVersion;
};

/** A push queue consumed as an async iterator; ends when closed. */
export class EventChannel implements AsyncIterable<RunEvent> {
  private buffer: RunEvent[] = [];
  private waiters: ((r: IteratorResult<RunEvent>) => void)[] = [];
  private closed = false;

  push(e: RunEvent) {
    if (this.closed) return;
    const w = this.waiters.shift();
    if (w) w({ value: e, done: false });
    else this.buffer.push(e);
  }

  close() {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w({ value: undefined as never, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    return {
      next: () => {
        const e = this.buffer.shift();
        if (e) return Promise.resolve({ value: e, done: false });
        if (this.closed) return Promise.resolve({ value: undefined as never, done: true });
        return new Promise((r) => this.waiters.push(r));
      },
    };
  }
}
