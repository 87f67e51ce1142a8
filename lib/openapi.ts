// The REST API as an OpenAPI 3.1 document. Request bodies come from the same zod schemas the routes parse.
import { z } from "zod";
import { decisionSchema, forkSchema, startRunSchema } from "./runs/schemas.ts";
import { newTokenSchema } from "./tokens/service.ts";
import { inboxDto, runDto, runListDto } from "./runs/dto.ts";

const shaped = (description: string, schema: z.ZodType) => ({
  description,
  content: { "application/json": { schema: z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) } },
});
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  schema: { type: "string", maxLength: 200 },
  description: "A retried start with the same key (per caller) returns the run the first request created",
};

const json = (schema: z.ZodType) => ({
  content: { "application/json": { schema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) } },
});
const error = { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
const errors = { 400: error, 401: error, 403: error, 404: error, 409: error };
const runId = { name: "runId", in: "path", required: true, schema: { type: "string" } };
const ok = (description: string) => ({ description, content: { "application/json": { schema: { type: "object" } } } });
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
      schemas: {
        Error: {
          type: "object",
          required: ["error"],
          description:
            'A 409 for a run with an unreadable record is {"error":"AgentCheckpointCorruptionError","message","key"}; a stale decision carries the approval\'s current state in `current`.',
          properties: {
            error: { type: "string" },
            field: { type: "string" },
            message: { type: "string" },
            key: { type: ["string", "null"] },
            current: { type: "object" },
          },
        },
      },
    },
    paths: {
      "/api/agents": {
        get: { summary: "Agents that can be started, with their input JSON schema", responses: { 200: ok("Agents"), ...errors } },
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
          responses: { 200: shaped("A page of runs", runListDto), ...errors },
        },
        post: {
          summary: "Start a run in the background",
          parameters: [idempotencyKey],
          requestBody: json(startRunSchema),
          responses: { 201: shaped("{ id, replayed }", z.object({ id: z.string(), replayed: z.boolean() })), ...errors },
        },
      },
      "/api/runs/{runId}": {
        get: {
          summary: "Run header, conversation, approvals",
          parameters: [runId],
          responses: {
            200: shaped(
              "Run view (run: the run's header)",
              z.object({
                run: runDto,
                corruption: z.unknown(),
                conversation: z.unknown(),
                approvals: z.array(z.unknown()),
                checkpointCount: z.number(),
                canResume: z.boolean(),
                asOfMs: z.number(),
              }),
            ),
            ...errors,
          },
        },
      },
      "/api/runs/{runId}/checkpoints": {
        get: {
          summary: "Checkpoints in order, by cursor",
          parameters: [runId, q("cursor", "nextCursor"), q("take", "≤ 500")],
          responses: { 200: ok("A page of checkpoints"), ...errors },
        },
      },
      "/api/runs/{runId}/diff": {
        get: {
          summary: "Difference between two checkpoints",
          parameters: [runId, q("a", "seq"), q("b", "seq")],
          responses: { 200: ok("Diff"), ...errors },
        },
      },
      "/api/runs/{runId}/resume": {
        post: {
          summary: "Resume a paused run whose approvals are all decided",
          parameters: [runId],
          responses: { 202: ok("Resuming"), ...errors },
        },
      },
      "/api/runs/{runId}/cancel": {
        post: { summary: "Cancel a running or paused run", parameters: [runId], responses: { 202: ok("Cancelling"), ...errors } },
      },
      "/api/runs/{runId}/retry": {
        post: {
          summary: "Retry a failed run from its last good checkpoint",
          parameters: [runId],
          responses: { 202: ok("Retrying"), ...errors },
        },
      },
      "/api/runs/{runId}/fork": {
        post: {
          summary: "Start a new run from a checkpoint of this one",
          parameters: [runId],
          requestBody: json(forkSchema),
          responses: { 201: ok("{ id, forkedFrom }"), ...errors },
        },
      },
      "/api/approvals": {
        get: {
          summary: "Pending approvals, oldest first",
          parameters: [q("agent", "Agent name"), q("tool", "Tool name"), q("count", "1: only the count")],
          responses: {
            200: shaped("Approvals (each with the argsHash a decision sends back), unreadable records set aside in corrupt", inboxDto),
            ...errors,
          },
        },
      },
      "/api/approvals/{approvalId}/decision": {
        post: {
          summary:
            "Approve (optionally with edited args) or reject (reason required). Send the argsHash you were shown: a decision on arguments edited since is 409",
          parameters: [{ name: "approvalId", in: "path", required: true, schema: { type: "string" } }],
          requestBody: json(decisionSchema),
          responses: { 200: ok("{ approval, resumed }"), ...errors },
        },
      },
      "/api/audit": {
        get: {
          summary: "Audit log, newest first",
          parameters: [q("action", "Action prefix"), q("actor", "Actor email"), q("targetId", "Run or user id"), q("cursor", "nextCursor")],
          responses: { 200: ok("Events"), ...errors },
        },
      },
      "/api/admin/tokens": {
        get: { summary: "API tokens (admin)", responses: { 200: ok("Tokens"), ...errors } },
        post: {
          summary: "Create a token; the response is the only time it is shown",
          requestBody: json(newTokenSchema),
          responses: { 201: ok("Token"), ...errors },
        },
      },
      "/api/admin/tokens/{tokenId}": {
        delete: {
          summary: "Revoke a token",
          parameters: [{ name: "tokenId", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: ok("Revoked"), ...errors },
        },
      },
    },
  };
}
