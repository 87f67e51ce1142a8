// A model adapter for tests whose turns are a function of the request: `answer` returns the text and the
// tool calls of turn N (1 for the first answer); finish reason, usage and tokens are filled in.
import type { LlmRequest, ModelAdapter, ToolCall } from "../../lib/runner/index.ts";

export function scriptedModel(
  provider: string,
  answer: (turn: number, req: LlmRequest) => { text: string; calls?: ToolCall[] } | Promise<{ text: string; calls?: ToolCall[] }>,
): ModelAdapter {
  return {
    provider,
    async generate(req: LlmRequest) {
      const turn = req.messages.filter((m) => m.role === "assistant").length + 1;
      const { text, calls = [] } = await answer(turn, req);
      return {
        text,
        tool_calls: calls,
        finish_reason: calls.length ? "tool_calls" : "stop",
        usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
        session_token: null,
        checkpoint_token: null,
        structured: null,
      };
    },
  };
}
