// The runtime protocol's part of the OpenAPI document (lib/openapi.ts): its operations, under one tag, with
// request bodies and responses from lib/dto-protocol.ts (importing it registers the responses in apiSchemas).
import type { z } from "zod";
import { claimSchema, interruptBatchSchema, runtimeEventsSchema, runtimeRunSchema, withdrawSchema } from "./dto-protocol.ts";

export const RUNTIME = "Runtime protocol";
const interruptId = {
  name: "interruptId",
  in: "path",
  required: true,
  schema: { type: "string" },
  description: "The runtime's own id of the interrupt",
};

type Shaped = { description: string; content: { "application/json": { schema: { $ref: string } } } };
type Helpers = {
  json: (schema: z.ZodType) => { content: { "application/json": { schema: Record<string, unknown> } } };
  shaped: (description: string, name: string) => Shaped;
  q: (name: string, description: string) => { name: string; in: string; required: boolean; schema: { type: string }; description: string };
  error: Shaped;
  runId: { name: string; in: string; required: boolean; schema: { type: string } };
};

export function runtimePaths({ json, shaped, q, error, runId }: Helpers) {
  // Only a runtime token (role runtime) is a caller here; it sees only the runs it registered (others: 404).
  const runtimeErrors = { 400: error, 401: error, 404: error, 409: error, 503: error };
  const runtimeRunId = { ...runId, description: "The console's run id (from registerRuntimeRun)" };
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
          "Each interrupt is a tool approval or a question, idempotent by its id (the same id with other arguments is 409 with the interrupt parked before); argsSchema and responseSchema must compile (400 naming the interrupt and the schema's path); the calls of one step go in one request (or share a batchId). The run pauses, every reviewer's inbox lists them, the pause webhook is sent. decisions lists what the runtime can apply (a framework that cannot apply edited arguments leaves out edit).",
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
          "Claims the interrupt's decision for a claimant (an id the runtime keeps with its own state) before applying it. The first claimant wins; the same claimant may claim again (a process that died after claiming comes back with its id; its lease starts again); any other claimant is answered 409 with the decision in current (its claimant the holder) and must apply nothing. A claim whose call's result is never reported (a tool_result event for the call, or the run ending) passes to the next claimant once its leaseS ran out. 409 too while it is not decided.",
        parameters: [runtimeRunId, interruptId],
        requestBody: json(claimSchema),
        responses: { 200: shaped("The decision, claimed by this claimant", "ClaimedDecision"), ...runtimeErrors },
      },
    },
    "/api/v1/runtime/runs/{runId}/interrupts/{interruptId}/withdraw": {
      post: {
        operationId: "withdrawInterrupt",
        tags: [RUNTIME],
        summary: "Withdraw a pending interrupt whose request ended",
        description:
          "The request that asked is gone (an MCP elicitation cancelled or timed out): the interrupt leaves every inbox, closed as expired (decided by system:withdrawn), audited as runtime.withdraw; a reviewer's decision afterwards is 409 with its state. One already decided or closed is answered as it stands (withdrawn false).",
        parameters: [runtimeRunId, interruptId],
        requestBody: json(withdrawSchema),
        responses: { 200: shaped("The interrupt as it now stands", "WithdrawnInterrupt"), ...runtimeErrors },
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
