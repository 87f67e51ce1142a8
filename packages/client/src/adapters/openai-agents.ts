// OpenAI Agents JS (@openai/agents) through the runtime protocol. A tool with `needsApproval` stops the run
// with `result.interruptions`; parkInterruptions parks them in the console's inbox (one step, one batch)
// and hands back the serialized RunState for the runtime to keep (the console keeps requests and
// decisions, the runtime its own state). Any process later rebuilds the state from that string
// (RunState.fromString) and calls applyDecisions: it waits for every decision, claims them for its claimant
// (one claimant applies them; any other gets ClaimedByAnotherError), applies them with state.approve /
// state.reject(message) and hands the state back to run again. Agents JS cannot run a call with edited
// arguments (openai-agents-js #1097), so its interrupts offer approve and reject only.
// The SDK is imported for its types only: every value comes from the caller's own copy of the SDK, so a
// project that loads this module one way (require) and the SDK another (import) still has one RunState.
import type { Agent, RunState, RunToolApprovalItem } from "@openai/agents";
import { approveOrReject, newClaimant, type ParkOptions, type ResumeOptions, type RuntimeClient, type RuntimeDecision } from "../index.ts";

export type { ParkOptions, ResumeOptions };

// biome-ignore lint/suspicious/noExplicitAny: the SDK's own constraint for any agent (Agent<any, any>)
type AnyAgent = Agent<any, any>;

export const FRAMEWORK = "openai-agents";

type FunctionCall = { type: "function_call"; callId: string; name: string; arguments: string };

const callOf = (item: RunToolApprovalItem): FunctionCall => {
  const raw = item.rawItem as Partial<FunctionCall> & { type?: string; id?: string };
  if (raw.type !== "function_call" || !raw.callId) throw new Error(`Only function tool approvals are parked (got ${raw.type})`);
  return raw as FunctionCall;
};

function argsOf(call: FunctionCall): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(call.arguments || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { arguments: call.arguments };
  }
}

/** Parks a result's interruptions as one batch; returns the serialized state to keep and the interrupt ids. */
export async function parkInterruptions(
  client: RuntimeClient,
  runId: string,
  result: { interruptions: RunToolApprovalItem[]; state: { toString(): string } },
  opts: ParkOptions = {},
): Promise<{ state: string; interruptIds: string[] }> {
  const calls = result.interruptions.map(callOf);
  if (calls.length)
    await client.parkInterrupts(runId, {
      batchId: calls.map((c) => c.callId).join(","),
      interrupts: calls.map((c) => approveOrReject(c.callId, { name: c.name, args: argsOf(c), callId: c.callId }, opts)),
    });
  return { state: result.state.toString(), interruptIds: calls.map((c) => c.callId) };
}

/** How one decision lands on the state: approve, or reject with the reviewer's reason as the model's text. */
export function applyDecision(state: RunState<unknown, AnyAgent>, item: RunToolApprovalItem, d: RuntimeDecision) {
  if (d.decision === "approve") state.approve(item);
  else if (d.decision === "edit") throw new Error("Agents JS cannot run a call with edited arguments; edit was not offered");
  else state.reject(item, { message: d.message ?? (d.decision === "expire" ? "Nobody approved this in time" : "Rejected by a reviewer") });
}

// The claimant kept in the serialized RunState (a key of its own beside the SDK's, which RunState.fromString
// ignores), so a process that restarts from the state it saved claims as the one that died.
const CLAIMANT_KEY = "afkClaimant";

/** The claimant kept in a serialized state (by withClaimant), or null. */
export function claimantOf(serialized: string): string | null {
  const v = (JSON.parse(serialized) as Record<string, unknown>)[CLAIMANT_KEY];
  return typeof v === "string" ? v : null;
}

/**
 * The serialized state with a claimant of its own (the one it has, else a new one). Save what it returns
 * before resuming: a process that dies after claiming and resumes from it again is the same claimant.
 */
export function withClaimant(serialized: string, claimant: string = claimantOf(serialized) ?? newClaimant()): string {
  return JSON.stringify({ ...(JSON.parse(serialized) as Record<string, unknown>), [CLAIMANT_KEY]: claimant });
}

/**
 * Waits for a decision on each of the state's interruptions, claims them all for one claimant and only then
 * applies them, and returns the state to run again (`run(agent, state)`). Another claimant holding one is a
 * ClaimedByAnotherError and nothing is applied: every resumer claims in the same order, so the one that wins
 * the first claim wins them all. A claimant that claimed before (a process that died, resuming from the
 * state it saved with withClaimant) gets its decisions again.
 */
export async function applyDecisions<S extends RunState<unknown, AnyAgent>>(
  client: RuntimeClient,
  runId: string,
  state: S,
  opts: ResumeOptions = {},
): Promise<S> {
  const claimant = opts.claimant ?? newClaimant();
  const items = state.getInterruptions();
  const ids = items.map((i) => callOf(i).callId);
  await client.waitForDecisions(runId, ids, opts);
  const decisions: RuntimeDecision[] = [];
  for (const id of ids) decisions.push(await client.claim(runId, id, { claimant, leaseS: opts.leaseS }));
  for (const [n, item] of items.entries()) applyDecision(state, item, decisions[n]);
  return state;
}
