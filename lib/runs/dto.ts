// Response shapes of the runs area: what the API answers and what pages hand to client components.
// Every shape is a zod schema (the OpenAPI document is generated from them) and every mapper takes a
// database row and returns plain JSON: ISO dates, plain numbers, no lease internals, no raw Prisma rows.
// A raw Run row cannot be serialized at all (its lease deadline is a BigInt), which is why nothing else
// may put one into a response.
import { z } from "zod";
import type { Run } from "../generated/sqlite/client.ts";

const iso = z.string().describe("ISO 8601 time");
const isoOrNull = iso.nullable();
const toIso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export const runDto = z.object({
  id: z.string(),
  threadId: z.string(),
  agentName: z.string(),
  state: z.string(),
  step: z.number().int(),
  phase: z.string().nullable(),
  input: z.unknown(),
  submittedById: z.string().nullable(),
  submittedByEmail: z.string().nullable(),
  model: z.string().nullable(),
  totalTokens: z.number().int(),
  costUsd: z.number(),
  forkedFromRunId: z.string().nullable(),
  forkedFromSeq: z.number().int().nullable(),
  cancelRequested: z.boolean(),
  // Set when a reader found one of the run's records unreadable: the key of that record.
  corruptKey: z.string().nullable(),
  prunedAt: isoOrNull,
  prunedCheckpoints: z.number().int(),
  error: z.string().nullable(),
  createdAt: iso,
  updatedAt: iso,
  finishedAt: isoOrNull,
});
export type RunDto = z.infer<typeof runDto>;

// The Run row as Prisma returns it; the mappers below read it and never pass it on.
export type RunRowLike = Omit<Run, "leaseOwner" | "leaseUntilMs" | "leaseEpoch" | "idempotencyKey">;

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { unreadable: text.slice(0, 200) };
  }
}

export function toRunDto(r: RunRowLike, opts: { withInput?: boolean } = {}): RunDto {
  return {
    id: r.id,
    threadId: r.threadId,
    agentName: r.agentName,
    state: r.state,
    step: r.step,
    phase: r.phase,
    input: opts.withInput === false ? null : parseInput(r.input),
    submittedById: r.submittedById,
    submittedByEmail: r.submittedByEmail,
    model: r.model,
    totalTokens: r.totalTokens,
    costUsd: r.costUsd,
    forkedFromRunId: r.forkedFromRunId,
    forkedFromSeq: r.forkedFromSeq,
    cancelRequested: r.cancelRequested,
    corruptKey: r.corruptKey,
    prunedAt: toIso(r.prunedAt),
    prunedCheckpoints: r.prunedCheckpoints,
    error: r.error,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    finishedAt: toIso(r.finishedAt),
  };
}

export const runListDto = z.object({ runs: z.array(runDto), nextCursor: z.string().nullable() });
export const toRunListDto = (p: { runs: RunRowLike[]; nextCursor: string | null }) => ({
  runs: p.runs.map((r) => toRunDto(r, { withInput: false })),
  nextCursor: p.nextCursor,
});

export const deliveryDto = z.object({
  id: z.string(),
  event: z.string(),
  url: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: iso,
  deliveredAt: isoOrNull,
});
export type DeliveryDto = z.infer<typeof deliveryDto>;
export const toDeliveryDto = (d: {
  id: string;
  event: string;
  url: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}): DeliveryDto => ({
  id: d.id,
  event: d.event,
  url: d.url,
  status: d.status,
  attempts: d.attempts,
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  createdAt: d.createdAt.toISOString(),
  deliveredAt: toIso(d.deliveredAt),
});

export const corruptionDto = z.object({
  error: z.literal("AgentCheckpointCorruptionError"),
  message: z.string(),
  key: z.string().nullable(),
});
export type CorruptionDto = z.infer<typeof corruptionDto>;

export const inboxItemDto = z.object({
  id: z.string(),
  runId: z.string(),
  subRunId: z.string().nullable(),
  agent: z.string(),
  rootAgent: z.string(),
  tool: z.string(),
  summary: z.string(),
  reason: z.string(),
  requestedBy: z.string().nullable(),
  requestedAtMs: z.number().int(),
  deadlineMs: z.number().int().nullable(),
  quorum: z.number().int(),
  approvals: z.number().int(),
  decidedByMe: z.boolean(),
  // The reviewer must see this to decide: the stored arguments hash and record version they saw.
  argsHash: z.string(),
  version: z.number().int(),
});
export type InboxItemDto = z.infer<typeof inboxItemDto>;

// An approval record that could not be read: listed (so nobody wonders where it went), never decidable.
export const inboxCorruptDto = z.object({
  key: z.string(),
  runId: z.string().nullable(),
  error: z.literal("AgentCheckpointCorruptionError"),
  message: z.string(),
});
export type InboxCorruptDto = z.infer<typeof inboxCorruptDto>;

export const inboxDto = z.object({
  approvals: z.array(inboxItemDto),
  corrupt: z.array(inboxCorruptDto),
  // The server's clock when the answer was built: "waiting for" is computed from it, so the server's
  // HTML and the browser's first render agree (no hydration mismatch) and refreshes move it on.
  asOfMs: z.number().int(),
});
export type InboxDto = z.infer<typeof inboxDto>;

export const timelineRunDto = z.object({
  id: z.string(),
  agentName: z.string(),
  state: z.string(),
  prunedAt: isoOrNull,
  prunedCheckpoints: z.number().int(),
});
export const toTimelineRunDto = (r: RunRowLike) => ({
  id: r.id,
  agentName: r.agentName,
  state: r.state,
  prunedAt: toIso(r.prunedAt),
  prunedCheckpoints: r.prunedCheckpoints,
});
