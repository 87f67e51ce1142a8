// Ask a human (afk-runtime.md, policy action `request_user_input`): a built-in tool the model calls with a
// question. It never executes: every call becomes a durable approval record of kind "question", the run
// pauses, and a reviewer's answer (text, or an object of `answerSchema`) is the call's result. The record
// carries the same guarantees as a tool approval: one answer wins under concurrency, a deadline declines
// it, every answer is audited by the console.
import { z } from "zod";
import type { Tool } from "./tools.ts";

export const ASK_HUMAN_TOOL = "request_user_input";

const questionArgs = z.object({
  question: z.string().trim().min(1).max(2000),
  /** What the model already knows, shown under the question. */
  context: z.string().max(4000).optional(),
});

export type AskHumanOptions = {
  /** The tool name the model sees (default request_user_input). */
  name?: string;
  description?: string;
  /** The answer's shape: the reviewer fills a form built from it and the model gets the object. */
  answerSchema?: z.ZodObject;
  /** Routing: the groups whose members may answer (default: anyone who may decide approvals). */
  groups?: string[];
};

/** A tool that pauses the run with a question for a reviewer; the answer is the call's result. */
export function askHuman(opts: AskHumanOptions = {}): Tool<typeof questionArgs> {
  return {
    name: opts.name ?? ASK_HUMAN_TOOL,
    description: opts.description ?? "Ask a human reviewer a question and wait for the answer",
    schema: questionArgs,
    asksHuman: { answerSchema: opts.answerSchema, groups: opts.groups },
    async execute() {
      throw new Error("A question is answered by a reviewer, never executed");
    },
  };
}

/** The question of a question record's arguments (what the inbox and the card show). */
export const questionOf = (args: Record<string, unknown>): string => (typeof args.question === "string" ? args.question : "");
