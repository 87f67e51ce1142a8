// The REST API as an OpenAPI 3.1 document. Request bodies come from the same zod schemas the routes parse;
// every response from the shapes in lib/dto.ts (components.schemas, one per registered shape). One file:
// it is one document, and its paths read best in the order a client meets them.
import { z } from "zod";
import {
  commentBodySchema,
  decisionSchema,
  forkSchema,
  newSavedViewSchema,
  newTokenSchema,
  newUserSchema,
  reassignSchema,
  startRunSchema,
  userPatchSchema,
} from "./services/schemas.ts";
import { apiSchemas } from "./dto.ts";
import { RUNTIME, runtimePaths } from "./openapi-runtime.ts";

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
      contact: { name: "AFK Console", url: `${serverUrl.replace(/\/$/, "")}/api/openapi.json` },
      version: "1",
      description:
        "Start agent runs, decide approvals, resume and inspect runs. Auth: a session cookie or `Authorization: Bearer <token>` (created by an admin under Admin → API tokens).",
    },
    servers: [{ url: serverUrl, description: "This console" }],
    tags: [
      { name: "Agents", description: "What can be started" },
      { name: "Runs", description: "Start, inspect, resume, cancel, retry and fork runs" },
      { name: "Views", description: "A reviewer's saved searches of the inbox and the runs list" },
      { name: "Approvals", description: "The inbox and reviewers' decisions" },
      { name: "Timeline", description: "Checkpoints of a run and their differences" },
      { name: "Audit", description: "The append-only audit log" },
      { name: "Live", description: "Server-sent events for the console's pages" },
      { name: "Health", description: "Liveness" },
      { name: "Admin", description: "Users and API tokens" },
      { name: RUNTIME, description: "External agent runtimes park their interrupts here and claim the decisions (v1)" },
    ],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: componentSchemas(),
    },
    paths: {
      "/api/agents": {
        get: {
          operationId: "listAgents",
          tags: ["Agents"],
          description: `The agents this console can start (those marked not configured lack their model provider), each with its input JSON schema for the start form.`,
          summary: "Agents that can be started, with their input JSON schema",
          responses: { 200: shaped("Agents", "Agents"), ...errors },
        },
      },
      "/api/runs": {
        get: {
          operationId: "listRuns",
          tags: ["Runs"],
          description: `Runs newest first, filtered by state, agent, submitter, dates and id prefix, a page at a time (nextCursor). Submitters see only the runs they started.`,
          summary: "List runs (newest first; submitters see their own)",
          parameters: [
            q("state", "Run state"),
            q("agent", "Agent name"),
            q("submitter", "Submitter email"),
            q("from", "ISO date"),
            q("to", "ISO date"),
            q("q", "Search: a run id prefix, or text in the run's input (an order id, a customer)"),
            q("cursor", "nextCursor of the previous page"),
            q("take", "Page size ≤ 200"),
          ],
          responses: { 200: shaped("A page of runs", "RunList"), ...errors },
        },
        post: {
          operationId: "startRun",
          tags: ["Runs"],
          description: `Starts a run of an agent with its input (checked against its input schema) in the background; the answer comes before the run executes. An Idempotency-Key makes a retried start return the first run.`,
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
          operationId: "getRun",
          tags: ["Runs"],
          description: `The run page as data: header, the conversation rebuilt from the latest snapshot (or from what an external runtime reported), its approvals with what each reader may decide, and its webhook deliveries.`,
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
          operationId: "listCheckpoints",
          tags: ["Timeline"],
          description: `The run's checkpoints in write order, a page at a time; an unreadable one is set aside in corrupt instead of failing the page.`,
          summary: "Checkpoints in order, by cursor",
          parameters: [runId, q("cursor", "nextCursor"), q("take", "≤ 500")],
          responses: { 200: shaped("A page of checkpoints; unreadable ones set aside in corrupt", "TimelinePage"), ...errors },
        },
      },
      "/api/runs/{runId}/diff": {
        get: {
          operationId: "diffCheckpoints",
          tags: ["Timeline"],
          description: `What changed between two checkpoints of the run (by seq): messages added, counters, tokens, cost, the pending response and the state.`,
          summary: "Difference between two checkpoints",
          parameters: [runId, q("a", "seq"), q("b", "seq")],
          responses: { 200: shaped("Diff", "CheckpointDiff"), ...errors },
        },
      },
      "/api/runs/{runId}/resume": {
        post: {
          operationId: "resumeRun",
          tags: ["Runs"],
          description: `Resumes a paused run once every approval is decided; a worker continues it from its latest checkpoint, executing exactly what was approved. 409 for an external run (its runtime resumes it).`,
          summary: "Resume a paused run whose approvals are all decided",
          parameters: [runId],
          responses: { 202: shaped("Resuming", "RunResumed"), ...errors },
        },
      },
      "/api/runs/{runId}/cancel": {
        post: {
          operationId: "cancelRun",
          tags: ["Runs"],
          description: `Cancels a running or paused run: a paused one ends at once and its waiting requests close; a running one is stopped where it executes.`,
          summary: "Cancel a running or paused run",
          parameters: [runId],
          responses: { 202: shaped("Cancelling", "RunCancelling"), ...errors },
        },
      },
      "/api/runs/{runId}/retry": {
        post: {
          operationId: "retryRun",
          tags: ["Runs"],
          description: `Retries a failed run from its last good checkpoint; effects already done replay instead of running twice.`,
          summary: "Retry a failed run from its last good checkpoint",
          parameters: [runId],
          responses: { 202: shaped("Retrying", "RunRetrying"), ...errors },
        },
      },
      "/api/runs/{runId}/fork": {
        get: {
          operationId: "forkPreview",
          tags: ["Runs"],
          description: `What a fork from checkpoint seq would do again: the tool calls that succeeded in this run after that checkpoint (a fork shares no effects with its source).`,
          summary: "Effects a fork from a checkpoint would run again",
          parameters: [runId, { name: "seq", in: "query", required: true, schema: { type: "integer", minimum: 0 } }],
          responses: { 200: shaped("What would run again", "ForkPreview"), ...errors },
        },
        post: {
          operationId: "forkRun",
          tags: ["Runs"],
          description: `Starts a new run from a checkpoint (seq) of this one, with the caller as its submitter.`,
          summary: "Start a new run from a checkpoint of this one",
          parameters: [runId],
          requestBody: json(forkSchema),
          responses: { 201: shaped("The new run", "RunForked"), ...errors },
        },
      },
      "/api/approvals": {
        get: {
          operationId: "listApprovals",
          tags: ["Approvals"],
          description: `The approvals inbox: pending approvals and questions oldest first, 200 a page (nextCursor), with the argsHash each decision sends back; with count=1 only how many are pending. Supports If-None-Match.`,
          summary: "Pending approvals, oldest first, 200 per page; canDecide says whether routing lets the caller decide each",
          parameters: [
            q("agent", "Agent name"),
            q("tool", "Tool name"),
            q("q", "Search: a run id prefix, or text in the tool, agent or arguments (an order id, a customer)"),
            q("group", "Only the approvals routed to this group"),
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
          operationId: "decideApproval",
          tags: ["Approvals"],
          description: `Records one reviewer's decision, checked against routing, separation of duties, the quorum and the arguments the reviewer saw, and audited.`,
          summary:
            "Approve (optionally with edited args), reject (reason required) or respond (the tool does not run; reason is what the model gets). A question (kind question) is answered with respond (reason, or answer: an object of its answerSchema) or declined with reject; approve is 400. Send the argsHash you were shown: a decision on arguments edited since is 409",
          parameters: [{ name: "approvalId", in: "path", required: true, schema: { type: "string" } }],
          requestBody: json(decisionSchema),
          responses: { 200: shaped("The approval after the decision; resumed: the run was resumed with it", "DecisionResult"), ...errors },
        },
      },
      "/api/approvals/{approvalId}/reassign": {
        post: {
          operationId: "reassignApproval",
          tags: ["Approvals"],
          description: `Hands a pending request to one reviewer (email; a request still needing more than one approval goes to a group instead) or one routing group (group): from then on only they may decide it (admins are not bound by routing). Only someone who may decide it, or an admin, may reassign it; audited (approval.reassign, before and after), and the new reviewers are notified. A decided request is 409 with its state in current.`,
          summary: "Reassign a pending request to another reviewer or routing group",
          parameters: [{ name: "approvalId", in: "path", required: true, schema: { type: "string" } }],
          requestBody: json(reassignSchema),
          responses: { 200: shaped("The assignment that now holds", "ReassignResult"), ...errors },
        },
      },
      "/api/approvals/{approvalId}/comments": {
        get: {
          operationId: "listApprovalComments",
          tags: ["Approvals"],
          description: `The comments on a request, oldest first: each with its author (email and name), its text as written (plain text, to be shown as text) and when. Whoever may see the run may read them; a submitter only on their own runs (404 otherwise).`,
          summary: "A request's comment thread, oldest first",
          parameters: [{ name: "approvalId", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: shaped("The comments", "Comments"), ...errors },
        },
        post: {
          operationId: "commentOnApproval",
          tags: ["Approvals"],
          description: `Adds a plain-text comment (at most 2,000 characters) to a request's thread: audited (approval.comment), the others who may decide it are notified, and a Slack message of the request gets it in its thread.`,
          summary: "Comment on a request",
          parameters: [{ name: "approvalId", in: "path", required: true, schema: { type: "string" } }],
          requestBody: json(commentBodySchema),
          responses: { 201: shaped("The comment as stored", "CommentResult"), ...errors },
        },
      },
      "/api/approvals/{approvalId}/preview": {
        get: {
          operationId: "previewApproval",
          tags: ["Approvals"],
          description: `One request as the inbox's preview pane shows it: the approval (with canDecide), its run, the conversation's last messages up to the call (text, cut), the earlier calls' results as fields, and checks where the request exceeds them.`,
          summary: "A request with the conversation that led to it and the results beside it",
          parameters: [{ name: "approvalId", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: shaped("The request, its excerpt, related results and checks", "ApprovalPreview"), ...errors },
        },
      },
      "/api/audit": {
        get: {
          operationId: "listAuditEvents",
          tags: ["Audit"],
          description: `The append-only audit log newest first: run starts, decisions with their before and after arguments, resumes, cancels, user and token changes.`,
          summary: "Audit log, newest first",
          parameters: [q("action", "Action prefix"), q("actor", "Actor email"), q("targetId", "Run or user id"), q("cursor", "nextCursor")],
          responses: { 200: shaped("Events", "AuditPage"), ...errors },
        },
      },
      "/api/events": {
        get: {
          operationId: "streamEvents",
          tags: ["Live"],
          description: `Server-sent events for one browser tab: a run's changes and streamed text, or the inbox's changes.`,
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
          operationId: "getHealth",
          tags: ["Health"],
          description: `Liveness for load balancers and monitors: the database round trip, the run queue's counts and this instance's work. Needs no authentication.`,
          summary: "Liveness: the database, the run queue, this instance's work (no auth)",
          security: [],
          responses: { 200: shaped("Healthy", "Health"), 503: shaped("Database unreachable", "Health") },
        },
      },
      ...runtimePaths({ json, shaped, q, error, runId }),
      "/api/health/live": {
        get: {
          operationId: "getLiveness",
          tags: ["Health"],
          description: `Liveness probe: 200 while the process answers. Nothing else is checked, so a database outage never restarts a healthy process. Needs no authentication.`,
          summary: "Liveness probe: the process answers; nothing else is checked (no auth)",
          security: [],
          responses: { 200: shaped("Alive", "Liveness") },
        },
      },
      "/api/health/ready": {
        get: {
          operationId: "getReadiness",
          tags: ["Health"],
          description: `Readiness probe: 200 when the database answers within 2 s, every migration of this build is applied and the instance is not draining (503 from SIGTERM on); the body says what is not ready. Needs no authentication.`,
          summary: "Readiness probe: the database answers, every migration is applied, not draining (no auth)",
          security: [],
          responses: { 200: shaped("Ready", "Readiness"), 503: shaped("Not ready, and why", "Readiness") },
        },
      },
      "/api/metrics": {
        get: {
          operationId: "getMetrics",
          tags: ["Health"],
          description: `This instance's metrics in the Prometheus text format, for a scraper: only with \`Authorization: Bearer <AFK_METRICS_TOKEN>\`; 404 when no metrics token is configured (off by default).`,
          summary: "Prometheus metrics of this instance (Authorization: Bearer AFK_METRICS_TOKEN; 404 when none is set)",
          responses: {
            200: {
              description: "Prometheus text exposition format 0.0.4",
              content: { "text/plain": { schema: { type: "string" } } },
            },
            401: error,
            404: error,
          },
        },
      },
      "/api/slack/interactions": {
        post: {
          operationId: "slackInteraction",
          tags: ["Approvals"],
          description: `Slack's interactivity request URL (docs/slack.md), called by Slack only: Approve, Reject and the reject modal's submission as a form with one \`payload\` field, signed with the app's signing secret (\`X-Slack-Signature\`, \`X-Slack-Request-Timestamp\`; five minutes either way; a replay is refused). Decided as the console user with the Slack user's verified email; whoever may not decide is answered privately in Slack. 404 while Slack is not configured.`,
          summary: "Slack buttons and modals (signed by Slack; no session or token)",
          security: [],
          requestBody: {
            content: { "application/x-www-form-urlencoded": { schema: { type: "object", properties: { payload: { type: "string" } } } } },
          },
          responses: {
            200: {
              description:
                "Acknowledged. A button click, or a payload the console does not handle: no body (Slack needs only the 200). The reject modal's submission: what the modal does next.",
              content: {
                "application/json": { schema: { anyOf: [ref("SlackInteractionAnswer"), { type: "null", description: "no body" }] } },
              },
            },
            400: error,
            401: error,
            404: error,
            413: error,
          },
        },
      },
      "/api/admin/users": {
        get: {
          operationId: "listUsers",
          tags: ["Admin"],
          description: `Every user with role, groups and whether disabled (admins only).`,
          summary: "Users (admin)",
          responses: { 200: shaped("Users", "Users"), ...errors },
        },
        post: {
          operationId: "createUser",
          tags: ["Admin"],
          description: `Adds a user with a role, a password and routing groups (admins only).`,
          summary: "Add a user",
          requestBody: json(newUserSchema),
          responses: { 201: shaped("The user", "UserResult"), ...errors },
        },
      },
      "/api/admin/users/{userId}": {
        patch: {
          operationId: "updateUser",
          tags: ["Admin"],
          description: `Changes a user's role or groups, or disables them; a role change or disabling ends their sessions and their tokens at once.`,
          summary: "Change a user's role or disable them (ends their sessions)",
          parameters: [{ name: "userId", in: "path", required: true, schema: { type: "string" } }],
          requestBody: json(userPatchSchema),
          responses: { 200: shaped("The user", "UserResult"), ...errors },
        },
      },
      "/api/admin/tokens": {
        get: {
          operationId: "listTokens",
          tags: ["Admin"],
          description: `Every API token with its role, the user it acts as, and when it was last used (never the token itself).`,
          summary: "API tokens (admin)",
          responses: { 200: shaped("Tokens", "Tokens"), ...errors },
        },
        post: {
          operationId: "createToken",
          tags: ["Admin"],
          description: `Creates an API token for a role (runtime: an external agent runtime's token), optionally acting as a user; the answer is the only time the token is shown.`,
          summary: "Create a token; the response is the only time it is shown",
          requestBody: json(newTokenSchema),
          responses: { 201: shaped("Token, with its secret", "CreatedToken"), ...errors },
        },
      },
      "/api/views": {
        get: {
          operationId: "listSavedViews",
          tags: ["Views"],
          description: `The caller's saved views (filters of the approvals inbox or the runs list), each with the page it opens and what it matches now.`,
          summary: "List your saved views with their counts",
          responses: { 200: shaped("Your views", "SavedViews"), ...errors },
        },
        post: {
          operationId: "saveView",
          tags: ["Views"],
          description: `Saves the filters of the approvals inbox (agent, tool, framework, q, group) or the runs list (state, agent, submitter, from, to, q) under a name of the caller's.`,
          summary: "Save a view",
          requestBody: json(newSavedViewSchema),
          responses: { 201: shaped("The view", "SavedView"), ...errors },
        },
      },
      "/api/views/{viewId}": {
        delete: {
          operationId: "deleteView",
          tags: ["Views"],
          description: `Deletes one of the caller's saved views.`,
          summary: "Delete a saved view",
          parameters: [{ name: "viewId", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: shaped("Deleted", "ViewDeleted"), ...errors },
        },
      },
      "/api/admin/tokens/{tokenId}": {
        delete: {
          operationId: "revokeToken",
          tags: ["Admin"],
          description: `Revokes a token; it stops working at once.`,
          summary: "Revoke a token",
          parameters: [{ name: "tokenId", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: shaped("Revoked", "RevokedToken"), ...errors },
        },
      },
    },
  };
}

/** The document cut to the runtime protocol: its paths and every schema they reach (the protocol client's types). */
export function runtimeProtocolDocument(serverUrl: string) {
  const doc = openApiDocument(serverUrl);
  const paths = Object.fromEntries(Object.entries(doc.paths).filter(([p]) => p.startsWith("/api/v1/runtime/")));
  const schemas = doc.components.schemas;
  const reached = new Set<string>();
  const walk = (v: unknown) => {
    for (const m of JSON.stringify(v).matchAll(/#\/components\/schemas\/([A-Za-z0-9_]+)/g))
      if (!reached.has(m[1])) {
        reached.add(m[1]);
        walk(schemas[m[1]]);
      }
  };
  walk(paths);
  return {
    ...doc,
    paths,
    components: { ...doc.components, schemas: Object.fromEntries(Object.entries(schemas).filter(([n]) => reached.has(n))) },
  };
}
