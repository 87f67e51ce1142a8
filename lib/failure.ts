// The one mapping of errors to HTTP: `failureOf` turns any error into a status and the JSON body of the
// Error schema (lib/dto.ts). Apart from lib/http.ts, which answers it, so that the CLI maps the services'
// errors the same way without loading Next (its compiled copy in the bundle has no next/server to load).
import { CorruptRecordError, DecisionConflictError, HttpError } from "./auth/errors.ts";
import { isExpiredTransaction } from "./db/errors.ts";
import type { ErrorBody } from "./dto.ts";
import { AgentCheckpointCorruptionError } from "./runner/index.ts";

// An expired transaction rolled back everything in it: nothing happened; the caller may retry.
const RETRY_LATER = "The database did not finish this request in time and nothing was changed; try again";

export type Failure = { status: number; body: ErrorBody; headers?: Record<string, string> };

export function failureOf(e: unknown): Failure {
  if (isExpiredTransaction(e)) return { status: 503, body: { error: RETRY_LATER }, headers: { "retry-after": "1" } };
  // An unreadable record that reached here unhandled is still that run's problem, not a server error.
  if (e instanceof AgentCheckpointCorruptionError || e instanceof CorruptRecordError)
    return { status: 409, body: { error: "AgentCheckpointCorruptionError", message: e.message, key: e.key ?? null } };
  if (e instanceof HttpError) {
    const body: ErrorBody = { error: e.message };
    if (e.field) body.field = e.field;
    if (e instanceof DecisionConflictError) body.current = e.current;
    return { status: e.status, body };
  }
  return { status: 500, body: { error: "Internal error" } };
}
