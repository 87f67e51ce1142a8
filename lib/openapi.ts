// The REST API as an OpenAPI 3.1 document. Request bodies come from the same zod schemas the routes parse;
// every response from the shapes in lib/dto.ts (components.schemas, one per registered shape).
import { z } from "zod";
import {
  decisionSchema,
  forkSchema,
  interruptBatchSchema,
  newTokenSchema,
  newUserSchema,
  runtimeEventsSchema,
  runtimeRunSchema,
  startRunSchema,
  userPatchSchema,
} from "./services/schemas.ts";
import { apiSchemas } from "./dto.ts";

const componentSchemas = (): Record<string, unknown> => {
  const { schemas } = z.toJSONSchema(apiSchemas, { io: "output", unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` });
  // Each is embedded in this document: the dialect and ids are the document's, not their own.
  return Object.fromEntries(Object.entries(schemas).map(([name, { $schema: _s, $id: _i, ...rest }]) => [name, rest]));
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const shaped = (description: string, name: string) => ({ description, content: { "application/json": { schema: ref(name) } } });
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  schema: { type: "string", maxLength: 200 },
  description: "A retried start with the same key (per caller) returns the run the first request created",
};

const json = (schema: z.ZodType) => {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  return { content: { "application/json": { schema: rest } } };
};
const error = shaped("Error", "Error");
// 503: a transaction that could not finish in time (a stalled instance, a slow database) changed nothing.
const errors = { 400: error, 401: error, 403: error, 404: error, 409: error, 503: error };
const runId = { name: "runId", in: "path", required: true, schema: { type: "string" } };
const q = (name: string, description: string) => ({ name, in: "query", required: false, schema: { type: "string" }, description });

export function openApiDocument(serverUrl: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: "AFK Console API",
      version: "1",
      description:
        "Start agent runs, decide approvals, resume and inspect runs. Auth: a session cookie or `Authorization: Bearer <token>` (created by an admin under Admin → API tokens).",
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: componentSchemas(),
    },
    paths: {
      "/api/agents": {
        get: {
          summary: "Agents that can be started, with their input JSON schema",
          responses: { 200: shaped("Agents", "Agents"), ...errors },
        },
      },
      "/api/runs": {
        get: {
          summary: "List runs (newest first; submitters see their own)",
          parameters: [
            q("state", "Run state"),
            q("agent", "Agent name"),
            q("submitter", "Submitter email"),
            q("from", "ISO date"),
            q("to", "ISO date"),
            q("q", "Run id prefix"),
            q("cursor", "nextCursor of the previous page"),
            q("take", "Page size ≤ 200"),
          ],
          responses: { 200: shaped("A page of runs", "RunList"), ...errors },
        },
        post: {
          summary: "Start a run in the background",
          parameters: [idempotencyKey],
          requestBody: json(startRunSchema),
          responses: {
            201: shaped("The run (replayed: an earlier request with this Idempotency-Key created it)", "RunStarted"),
            ...errors,
          },
        },
      },
      "/api/runs/{runId}": {
        get: {
          summary: "Run header, conversation, approvals",
          parameters: [runId],
          responses: {
            200: shaped("Run header, conversation, approvals, deliveries", "RunView"),
            ...errors,
          },
        },
      },
      "/api/runs/{runId}/checkpoints": {
        get: {
          summary: "Checkpoints in order, by cursor",
          parameters: [runId, q("cursor", "nextCursor"), q("take", "≤ 500")],
          responses: { 200: shaped("A page of checkpoints; unreadable ones set aside in corrupt", "TimelinePage"), ...errors },
        },
      },
      "/api/runs/{runId}/diff": {
        get: {
          summary: "Difference between two checkpoints",
          parameters: [runId, q("a", "seq"), q("b", "seq")],
          responses: { 200: shaped("Diff", "CheckpointDiff"), ...errors },
        },
      },
      "/api/runs/{runId}/resume": {
        post: {
          summary: "Resume a paused run whose approvals are all decided",
          parameters: [runId],
          responses: { 202: shaped("Resuming", "RunResumed"), ...errors },
        },
      },
      "/api/runs/{runId}/cancel": {
        post: {
          summary: "Cancel a running or paused run",
          parameters: [runId],
          responses: { 202: shaped("Cancelling", "RunCancelling"), ...errors },
        },
      },
      "/api/runs/{runId}/retry": {
        post: {
          summary: "Retry a failed run from its last good checkpoint",
          parameters: [runId],
          responses: { 202: shaped("Retrying", "RunRetrying"), ...errors },
        },
      },
      "/api/runs/{runId}/fork": {
        post: {
          summary: "Start a new run from a checkpoint of this one",
          parameters: [runId],
          requestBody: json(forkSchema),
          responses: { 201: shaped("The new run", "RunForked"), ...errors },
        },
      },
      "/api/approvals": {
        get: {
          summary: "Pending approvals, oldest first, 200 per page; canDecide says whether routing lets the caller decide each",
          parameters: [
            q("agent", "Agent name"),
            q("tool", "Tool name"),
            q("cursor", "nextCursor of the previous page"),
            q("count", "1: only the count"),
            {
              name: "If-None-Match",
              in: "header",
              required: false,
              schema: { type: "string" },
              description: "The ETag of an earlier answer",
            },
          ],
          responses: {
            200: {
              description:
                "Approvals (each with the argsHash a decision sends back), unreadable records set aside in corrupt; with count=1 only the count",
              content: { "application/json": { schema: { oneOf: [ref("Inbox"), ref("PendingCount")] } } },
            },
            304: { description: "Not modified: the If-None-Match sent is the inbox's current ETag (the list only)" },
            ...errors,
          },
        },
      },
      "/api/approvals/{approvalId}/decision": {
        post: {
          summary:
            "Approve (optionally with edited args), reject (reason required) or respond (the tool does not run; reason is what the model gets). A question (kind question) is answered with respond (reason, or answer: an object of its answerSchema) or declined with reject; approve is 400. Send the argsHash you were shown: a decision on arguments edited since is 409",
          parameters: [{ name: "approvalId", in: "path", required: true, schema: { type: "string" } }],
          requestBody: json(decisionSchema),
          responses: { 200: shaped("The approval after the decision; resumed: the run was resumed with it", "DecisionResult"), ...errors },
        },
      },
      "/api/audit": {
        get: {
          summary: "Audit log, newest first",
          parameters: [q("action", "Action prefix"), q("actor", "Actor email"), q("targetId", "Run or user id"), q("cursor", "nextCursor")],
          responses: { 200: shaped("Events", "AuditPage"), ...errors },
        },
      },
      "/api/events": {
        get: {
          summary:
            "Live updates as server-sent events: `run` (the run changed: refetch it), `delta` (text its model is streaming: {runId, step, offset, text}), `inbox` (approvals were created or decided), after a first `ready`",
          parameters: [q("run", "A run id to follow"), q("inbox", "1: follow the approvals inbox (reviewers)")],
          responses: {
            200: {
              description: "An endless text/event-stream",
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
            ...errors,
          },
        },
      },
      "/api/health": {
        get: {
          summary: "Liveness: the database, the run queue, this instance's work (no auth)",
          security: [],
          responses: { 200: shaped("Healthy", "Health"), 503: shaped("Database unreachable", "Health") },
        },
      },
      ...runtimePaths(),
      "/api/admin/users": {
        get: { summary: "Users (admin)", responses: { 200: shaped("Users", "Users"), ...errors } },
        post: { summary: "Add a user", requestBody: json(newUserSchema), responses: { 201: shaped("The user", "UserResult"), ...errors } },
      },
      "/api/admin/users/{userId}": {
        patch: {
          summary: "Change a user's role or disable them (ends their sessions)",
          parameters: [{ name: "userId", in: "path", required: true, schema: { type: "string" } }],
          requestBody: json(userPatchSchema),
          responses: { 200: shaped("The user", "UserResult"), ...errors },
        },
      },
      "/api/admin/tokens": {
        get: { summary: "API tokens (admin)", responses: { 200: shaped("Tokens", "Tokens"), ...errors } },
        post: {
          summary: "Create a token; the response is the only time it is shown",
          requestBody: json(newTokenSchema),
          responses: { 201: shaped("Token, with its secret", "CreatedToken"), ...errors },
        },
      },
      "/api/admin/tokens/{tokenId}": {
        delete: {
          summary: "Revoke a token",
          parameters: [{ name: "tokenId", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: shaped("Revoked", "RevokedToken"), ...errors },
        },
      },
    },
  };
}

// ---- The runtime protocol (v1) ----

const RUNTIME = "Runtime protocol";
// Only a runtime token (role runtime) is a caller here; it sees only the runs it registered (others: 404).
const runtimeErrors = { 400: error, 401: error, 404: error, 409: error, 503: error };
const interruptId = {
  name: "interruptId",
  in: "path",
  required: true,
  schema: { type: "string" },
  description: "The runtime's own id of the interrupt",
};
const runtimeRunId = { ...runId, description: "The console's run id (from registerRuntimeRun)" };

function runtimePaths() {
  return {
    "/api/v1/runtime/runs": {
      post: {
        operationId: "registerRuntimeRun",
        tags: [RUNTIME],
        summary: "Register an external run (idempotent by externalId)",
        description:
          "Registers a run of an external runtime under its own id, with its framework, agent, labels, metadata and the user it acts for (who may then not decide its interrupts). Registering the same externalId again returns the same run (created false) with the labels and metadata sent.",
        requestBody: json(runtimeRunSchema),
        responses: { 200: shaped("The run", "RuntimeRun"), ...runtimeErrors },
      },
    },
    "/api/v1/runtime/runs/{runId}": {
      get: {
        operationId: "getRuntimeRun",
        tags: [RUNTIME],
        summary: "An external run as the console holds it",
        description: "The run's state (a reviewer or operator may have cancelled it), labels and metadata.",
        parameters: [runtimeRunId],
        responses: { 200: shaped("The run", "RuntimeRun"), ...runtimeErrors },
      },
    },
    "/api/v1/runtime/runs/{runId}/interrupts": {
      post: {
        operationId: "parkInterrupts",
        tags: [RUNTIME],
        summary: "Park one step's interrupts in the inbox",
        description:
          "Each interrupt is a tool approval or a question, idempotent by its id; the calls of one step go in one request (or share a batchId). The run pauses, every reviewer's inbox lists them, the pause webhook is sent. decisions lists what the runtime can apply (a framework that cannot apply edited arguments leaves out edit).",
        parameters: [runtimeRunId],
        requestBody: json(interruptBatchSchema),
        responses: { 200: shaped("Each interrupt, with its approval id and status", "ParkedInterrupts"), ...runtimeErrors },
      },
    },
    "/api/v1/runtime/runs/{runId}/decisions": {
      get: {
        operationId: "listRuntimeDecisions",
        tags: [RUNTIME],
        summary: "Decisions taken after a cursor (long-poll with wait)",
        description:
          "The run's decisions in the order they were taken, after cursor (none: from the first). With wait (seconds, at most 50) the request is held until a decision is taken on any instance or the run ends. A runtime that restarted reads on from its last cursor; it still claims each decision before applying it.",
        parameters: [
          runtimeRunId,
          q("cursor", "nextCursor of an earlier answer"),
          {
            name: "wait",
            in: "query",
            required: false,
            schema: { type: "integer", minimum: 0, maximum: 50 },
            description: "Seconds to hold the request",
          },
        ],
        responses: { 200: shaped("Decisions after the cursor", "RuntimeDecisions"), ...runtimeErrors },
      },
    },
    "/api/v1/runtime/runs/{runId}/decisions/stream": {
      get: {
        operationId: "streamRuntimeDecisions",
        tags: [RUNTIME],
        summary: "Decisions as server-sent events",
        description:
          "`decision` events (data: a RuntimeDecision; id: its cursor, sent back as Last-Event-ID on a reconnect) and `state` events ({runId, state, pending}); the stream ends when the run is over.",
        parameters: [
          runtimeRunId,
          q("cursor", "Start after this cursor"),
          { name: "Last-Event-ID", in: "header", required: false, schema: { type: "string" }, description: "The last event id received" },
        ],
        responses: {
          200: { description: "A text/event-stream", content: { "text/event-stream": { schema: { type: "string" } } } },
          ...runtimeErrors,
        },
      },
    },
    "/api/v1/runtime/runs/{runId}/interrupts/{interruptId}/claim": {
      post: {
        operationId: "claimRuntimeDecision",
        tags: [RUNTIME],
        summary: "Claim a decision to apply it (exactly once)",
        description:
          "Returns the interrupt's decision the first time; every later claim is 409 with the decision in current, so a runtime that crashed after claiming knows it was handed out. 409 too while it is not decided.",
        parameters: [runtimeRunId, interruptId],
        responses: { 200: shaped("The decision, now claimed", "ClaimedDecision"), ...runtimeErrors },
      },
    },
    "/api/v1/runtime/runs/{runId}/events": {
      post: {
        operationId: "reportRuntimeEvents",
        tags: [RUNTIME],
        summary: "Report progress: messages, tool results, phases, states",
        description:
          "Messages and tool results make the run page's conversation; phases and states its header. An event with an id is recorded once however often it is sent. A terminal state (completed, failed, cancelled) closes every interrupt still pending.",
        parameters: [runtimeRunId],
        requestBody: json(runtimeEventsSchema),
        responses: { 200: shaped("What was recorded", "RuntimeReport"), ...runtimeErrors },
      },
    },
  };
}
