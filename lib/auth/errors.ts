// The typed errors services throw. Each names its HTTP status; lib/http.ts alone turns one into an answer
// (route handlers and server actions alike).
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}
export class UnauthorizedError extends HttpError {
  constructor(message = "Sign in required") {
    super(401, message);
  }
}
export class ForbiddenError extends HttpError {
  constructor(message = "Your role may not do this") {
    super(403, message);
  }
}
export class ValidationError extends HttpError {
  constructor(field: string, message: string) {
    super(400, message, field);
  }
}
export class NotFoundError extends HttpError {
  constructor(message = "Not found") {
    super(404, message);
  }
}
export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

// A 409 on a decision that carries the approval's current state, so a client sees what happened instead.
export class DecisionConflictError extends ConflictError {
  constructor(
    message: string,
    readonly current: unknown,
  ) {
    super(message);
  }
}

// A record of the run could not be read (AgentCheckpointCorruptionError). 409, never 500: the request was
// fine, the run is not. Its answer names the error type and the record's key.
export class CorruptRecordError extends HttpError {
  constructor(
    message: string,
    readonly key: string | null,
  ) {
    super(409, message);
  }
}
