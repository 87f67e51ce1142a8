// What the CLI asks of the console, whichever way it reaches it: the local backend calls the services on
// DATABASE_URL as a named user, the remote one calls the REST API with a token. Both answer the same
// response shapes (lib/dto.ts), so the commands and their printing do not know which one they talk to.
import type { z } from "zod";
import { type ErrorBody, errorText } from "../dto-shared.ts";
import { isTerminal, RUN } from "../runner/run-states.ts";
import type {
  InboxDto,
  RunView,
  cancellingDto,
  decisionResultDto,
  forkedDto,
  resumedDto,
  retryingDto,
  runListDto,
  startedDto,
  timelinePageDto,
} from "../dto.ts";

export type Started = z.infer<typeof startedDto>;
export type RunList = z.infer<typeof runListDto>;
export type DecisionResult = z.infer<typeof decisionResultDto>;
// The API documents these as `true`; the services type them as boolean.
export type Resumed = Omit<z.infer<typeof resumedDto>, "resumed"> & { resumed: boolean };
export type Cancelling = Omit<z.infer<typeof cancellingDto>, "cancelling"> & { cancelling: boolean };
export type Retrying = Omit<z.infer<typeof retryingDto>, "retrying"> & { retrying: boolean };
export type Forked = z.infer<typeof forkedDto>;
export type TimelinePage = z.infer<typeof timelinePageDto>;

/** A decision as the API takes it (POST /api/approvals/{id}/decision). */
export type DecisionBody = {
  decision: "approve" | "reject" | "respond";
  reason?: string;
  args?: Record<string, unknown>;
  answer?: Record<string, unknown>;
  argsHash?: string;
};

/** Query strings of the lists, as the API takes them (empty values are no filter). */
export type Query = Record<string, string>;

export interface Backend {
  /** Who acts and where: "reviewer@example.com on file:./data/afk.db", "token on https://…". */
  readonly describe: string;
  /**
   * True when runs this process dispatches execute in it (local on SQLite): commands then follow them to
   * their pause or end, as --wait does, since leaving would strand them until their lease expired.
   */
  readonly executesHere: boolean;
  start(agent: string, input: Record<string, unknown>, opts: { idempotencyKey?: string }): Promise<Started>;
  runs(query: Query): Promise<RunList>;
  show(runId: string): Promise<RunView>;
  checkpoints(runId: string, query: Query): Promise<TimelinePage>;
  inbox(query: Query): Promise<InboxDto>;
  decide(approvalId: string, body: DecisionBody): Promise<DecisionResult>;
  resume(runId: string): Promise<Resumed>;
  cancel(runId: string): Promise<Cancelling>;
  retry(runId: string): Promise<Retrying>;
  fork(runId: string, seq: number): Promise<Forked>;
  /**
   * The run once it is paused or ended, or as it stands after timeoutMs.
   * Local on SQLite the run executes in this process, so this also waits for that execution.
   */
  wait(runId: string, timeoutMs: number): Promise<RunView>;
  /** Before exit: lets what this process executes pause or end, then closes connections. */
  close(): Promise<void>;
}

/** A refusal from the console (a service's typed error, or an API answer that is not 2xx). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly field?: string,
    readonly current?: unknown,
  ) {
    super(message);
  }

  /** The console's error answer (lib/http.ts builds it, locally or over REST) as one line; an unreadable
   * record is named by its key. */
  static of(status: number, body: ErrorBody): CliError {
    const message = body.key !== undefined ? `${errorText(body)} (key ${body.key})` : errorText(body);
    return new CliError(message, status, body.field, body.current);
  }
}

/** Wrong use of the CLI itself (unknown command, missing argument): exit code 2. */
export class UsageError extends Error {}

/** Paused or ended: what --wait waits for. */
export const settled = (state: string) => state === RUN.paused || isTerminal(state);

/** Polls `read` until the run is paused or ended, or the time is up. */
export async function pollUntilSettled(read: () => Promise<RunView>, timeoutMs: number, everyMs = 300): Promise<RunView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (settled(v.run.state) || Date.now() >= until) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
