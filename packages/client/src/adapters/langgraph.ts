// LangGraph JS (@langchain/langgraph) through the runtime protocol. A node calls interrupt() with the
// human-in-the-loop request shape (LangChain's HITL middleware: action_requests with their review_configs'
// allowed_decisions) and the graph's checkpointer keeps the thread; parkGraphInterrupts parks every action
// request of the step's interrupts in the console (one batch per interrupt, each request its own
// interrupt). Any process then calls resumeValue: it waits for every decision, claims them for its claimant
// (one claimant applies them; any other gets ClaimedByAnotherError) and returns the resume value, by
// interrupt id, for `new Command({ resume })`: each interrupt is answered with
// { decisions: [{type: "approve"} | {type: "edit", edited_action} | {type: "reject", message}] }.
// Nothing of LangGraph is imported: the caller builds the Command with its own copy of the package.
import { newClaimant, type ResumeOptions, type RuntimeClient, type RuntimeDecision } from "../index.ts";

export type { ResumeOptions };

export const FRAMEWORK = "langgraph";

export type ActionRequest = { name: string; args: Record<string, unknown>; description?: string };
export type ReviewConfig = {
  action_name: string;
  allowed_decisions: ("approve" | "edit" | "reject")[];
  args_schema?: Record<string, unknown>;
};
export type HitlRequest = { action_requests: ActionRequest[]; review_configs: ReviewConfig[] };
export type HitlDecision =
  | { type: "approve" }
  | { type: "edit"; edited_action: { name: string; args: Record<string, unknown> } }
  | { type: "reject"; message?: string };
export type HitlResponse = { decisions: HitlDecision[] };

/** A pending interrupt as the graph's state lists it (`(await graph.getState(config)).tasks[].interrupts`). */
export type GraphInterrupt = { id?: string; value?: unknown };

const requestId = (interruptId: string, index: number) => `${interruptId}:${index}`;

function hitlOf(i: GraphInterrupt): { id: string; request: HitlRequest } {
  const v = i.value as Partial<HitlRequest> | undefined;
  if (!i.id || !Array.isArray(v?.action_requests)) throw new Error("Not a human-in-the-loop interrupt (action_requests)");
  return { id: i.id, request: { action_requests: v.action_requests, review_configs: v.review_configs ?? [] } };
}

/** Parks the step's interrupts; returns the interrupt ids to wait for. */
export async function parkGraphInterrupts(
  client: RuntimeClient,
  runId: string,
  interrupts: GraphInterrupt[],
  opts: { groups?: string[]; timeoutS?: number } = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (const i of interrupts.map(hitlOf)) {
    const interrupts = i.request.action_requests.map((a, n) => {
      const review = i.request.review_configs.find((r) => r.action_name === a.name);
      ids.push(requestId(i.id, n));
      return {
        id: requestId(i.id, n),
        action: { name: a.name, args: a.args ?? {} },
        message: a.description ?? `${a.name} needs review`,
        decisions: review?.allowed_decisions ?? ["approve", "edit", "reject"],
        ...(review?.args_schema ? { argsSchema: review.args_schema } : {}),
        ...(opts.groups ? { groups: opts.groups } : {}),
        ...(opts.timeoutS ? { timeoutS: opts.timeoutS } : {}),
      };
    });
    await client.parkInterrupts(runId, { batchId: i.id, interrupts });
  }
  return ids;
}

/** One console decision as the HITL response's decision. */
export function hitlDecision(action: ActionRequest, d: RuntimeDecision): HitlDecision {
  if (d.decision === "approve") return { type: "approve" };
  if (d.decision === "edit") return { type: "edit", edited_action: { name: action.name, args: d.args ?? action.args } };
  return { type: "reject", message: d.message ?? (d.decision === "expire" ? "Nobody decided in time" : "Rejected by a reviewer") };
}

// The claimant kept in the thread's config (configurable.afk_claimant), beside its thread_id.
const CLAIMANT_KEY = "afk_claimant";
type Config = { configurable?: Record<string, unknown> };

/** The claimant kept in a thread config (by withClaimant), or null. */
export const claimantOf = (config: Config): string | null => {
  const v = config.configurable?.[CLAIMANT_KEY];
  return typeof v === "string" ? v : null;
};

/**
 * The config with a claimant of its own (the one it has, else a new one). Keep it where you keep the
 * thread's config: a process that dies after claiming and resumes with it again is the same claimant.
 */
export const withClaimant = <C extends Config>(config: C, claimant: string = claimantOf(config) ?? newClaimant()): C => ({
  ...config,
  configurable: { ...config.configurable, [CLAIMANT_KEY]: claimant },
});

/**
 * Waits for, claims (for one claimant) and turns every decision into the resume value of the Command that
 * resumes the graph, in any process: `graph.invoke(new Command({ resume: await resumeValue(…) }), config)`.
 * Another claimant holding one is a ClaimedByAnotherError and nothing is returned: every resumer claims in
 * the same order, so the one that wins the first claim wins them all.
 */
export async function resumeValue(
  client: RuntimeClient,
  runId: string,
  interrupts: GraphInterrupt[],
  opts: ResumeOptions = {},
): Promise<Record<string, HitlResponse>> {
  const claimant = opts.claimant ?? newClaimant();
  const hitl = interrupts.map(hitlOf);
  const ids = hitl.flatMap((i) => i.request.action_requests.map((_a, n) => requestId(i.id, n)));
  await client.waitForDecisions(runId, ids, opts);
  const claimed = new Map<string, RuntimeDecision>();
  for (const id of ids) claimed.set(id, await client.claim(runId, id, { claimant, leaseS: opts.leaseS }));
  const resume: Record<string, HitlResponse> = {};
  for (const i of hitl)
    resume[i.id] = {
      decisions: i.request.action_requests.map((a, n) => hitlDecision(a, claimed.get(requestId(i.id, n)) as RuntimeDecision)),
    };
  return resume;
}
