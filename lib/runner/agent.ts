import { z } from "zod";
import { hashOf } from "./canonical.ts";
import type { PolicyRule } from "./policy.ts";
import type { Tool } from "./tools.ts";

/** Limits that stop a run before it runs away: steps, LLM and tool calls, wall time, cost, fallbacks. */
export type FailSafe = {
  maxSteps: number;
  maxWallTimeS: number;
  maxLlmCalls: number;
  maxToolCalls: number;
  maxParallelTools: number;
  maxSubagentDepth: number;
  maxSubagentFanout: number;
  fallbackModelChain: string[];
  toolFailurePolicy: "continue_with_error" | "fail_run";
  llmFailurePolicy: "retry_then_fail" | "retry_then_degrade";
  approvalDenialPolicy: "skip_action" | "fail_run";
};

export const DEFAULT_FAIL_SAFE: FailSafe = {
  maxSteps: 20,
  maxWallTimeS: 300,
  maxLlmCalls: 50,
  maxToolCalls: 200,
  maxParallelTools: 16,
  maxSubagentDepth: 3,
  maxSubagentFanout: 4,
  fallbackModelChain: [],
  toolFailurePolicy: "continue_with_error",
  llmFailurePolicy: "retry_then_fail",
  approvalDenialPolicy: "skip_action",
};

/** An agent: its model, instructions, tools, subagents, policy rules and limits. Plain data; the Runner runs it. */
export type Agent = {
  name: string;
  description?: string;
  model: string;
  instructions: string | ((context: Record<string, unknown>) => string);
  // Each tool has its own argument type; a list of them can only be typed loosely.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  tools: Tool<any>[];
  subagents?: Agent[];
  contextDefaults?: Record<string, unknown>;
  policy?: PolicyRule[];
  failSafe?: Partial<FailSafe>;
  /** The form a team fills to start a run; toUserMessage turns its value into the first user message. */
  inputSchema?: z.ZodObject;
  /** The shape of the final answer: the model is asked for JSON of it, validated into `final_structured`. */
  outputSchema?: z.ZodObject;
  toUserMessage?: (input: Record<string, unknown>) => string;
  /** Fallback when an approval passes its deadline; default deny. */
  approvalFallback?: "deny" | "allow";
  approvalTimeoutS?: number;
  /**
   * Whether the decision that completes a step resumes the run (default true). false: the run waits, shown
   * "Ready to resume", until someone presses Resume.
   */
  autoResume?: boolean;
  /** Separation of duties: by default nobody decides an approval of a run they started. */
  allowSelfApproval?: boolean;
};

/** Whether the console resumes the agent's runs by itself once every pending call of a step is decided. */
export const resumesByItself = (a: Pick<Agent, "autoResume">) => a.autoResume !== false;

/** The agent's limits with the defaults filled in. */
export const failSafeOf = (a: Agent): FailSafe => ({ ...DEFAULT_FAIL_SAFE, ...a.failSafe });

/** The arguments of a delegation: the task the subagent gets as its user message (a reviewer may edit it). */
export const delegateTaskSchema = z.object({ task: z.string().min(1) });

/** The tool name under which a parent agent delegates to this subagent (`delegate_to_<name>`). */
export const delegateToolName = (sub: Pick<Agent, "name">) => `delegate_to_${sub.name.replace(/[^a-zA-Z0-9_]/g, "_")}`;

/** Identifies the agent's shape; resume refuses an agent with a different one. */
export function agentFingerprint(a: Agent): string {
  return hashOf({
    name: a.name,
    tools: a.tools.map((t) => t.name).sort(),
    subagents: (a.subagents ?? []).map((s) => s.name).sort(),
  });
}

/** The system prompt for this run: the agent's instructions, rendered with the run's context when a function. */
export function instructionsFor(a: Agent, context: Record<string, unknown>): string {
  return typeof a.instructions === "function" ? a.instructions(context) : a.instructions;
}
