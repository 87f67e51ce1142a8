// A runs list row's data as the page passes it to RunRows (run-rows.tsx). As objects, each row repeated its
// 8 field names (escaped, in the Flight payload inlined in the page), about half of a row's data: a row
// travels as an array of its values in a fixed order instead, its start time as epoch milliseconds.
import type { RunDto } from "@/lib/dto";

/** What a row shows of a run (only this crosses to the browser), in this order. */
export type RunRowData = [
  id: RunDto["id"],
  agentName: RunDto["agentName"],
  state: RunDto["state"],
  step: RunDto["step"],
  submittedByEmail: RunDto["submittedByEmail"],
  createdAtMs: number,
  totalTokens: RunDto["totalTokens"],
  costUsd: RunDto["costUsd"],
  ready: boolean,
  forkedFromRunId: RunDto["forkedFromRunId"],
  about: string | null,
];

export const runRowData = (
  r: Pick<
    RunDto,
    "id" | "agentName" | "state" | "step" | "submittedByEmail" | "createdAt" | "totalTokens" | "costUsd" | "forkedFromRunId"
  > & {
    ready: boolean;
    about: string | null;
  },
): RunRowData => [
  r.id,
  r.agentName,
  r.state,
  r.step,
  r.submittedByEmail,
  Date.parse(r.createdAt),
  r.totalTokens,
  r.costUsd,
  r.ready,
  r.forkedFromRunId,
  r.about,
];
