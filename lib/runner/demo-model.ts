// A deterministic, offline model. Each demo agent scripts its turns as a pure function of the
// conversation, so the same conversation always yields the same response (and resume can be checked
// against an uninterrupted run).
import type { LlmResponse, Message, ToolCall } from "./messages.ts";
import { type LlmRequest, type ModelAdapter, abortableSleep } from "./model.ts";

export type DemoTurn = { text?: string; toolCalls?: ToolCall[]; structured?: Record<string, unknown> | null };
export type DemoScript = (messages: Message[], context: Record<string, unknown>) => DemoTurn;

const approxTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/**
 * A deterministic model: a script per agent decides each turn from the conversation. With latencyMs it answers as slowly as a real model
 * would.
 */
export class DemoModel implements ModelAdapter {
  readonly provider = "demo";
  calls = 0;
  /** latencyMs makes each call take that long, like a real model (benchmarks and the chaos test use it). */
  constructor(
    private readonly scripts: Record<string, DemoScript>,
    private readonly latencyMs = 0,
  ) {}

  async generate(req: LlmRequest): Promise<Omit<LlmResponse, "model">> {
    const script = this.scripts[req.model];
    if (!script) throw new Error(`demo model has no script named ${req.model}`);
    this.calls++;
    const turn = script(req.messages, req.context);
    const toolCalls = turn.toolCalls ?? [];
    const text = turn.text ?? "";
    // Like a real provider: half the latency before the first token, the text streamed word by word over
    // the rest, and the wait ends when the run is cancelled.
    const words = text.match(/\S+\s*/g) ?? [];
    await abortableSleep(this.latencyMs / 2, req.signal);
    for (const w of words) {
      req.onText?.(w);
      if (this.latencyMs > 0) await abortableSleep(this.latencyMs / 2 / words.length, req.signal);
    }
    if (!words.length) await abortableSleep(this.latencyMs / 2, req.signal);
    const input = req.messages.reduce((n, m) => n + approxTokens(m.content), 0);
    const output = approxTokens(text + JSON.stringify(toolCalls));
    return {
      text,
      tool_calls: toolCalls,
      finish_reason: toolCalls.length ? "tool_calls" : "stop",
      usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
      session_token: null,
      checkpoint_token: null,
      structured: turn.structured ?? null,
    };
  }
}

/** A helper for scripts: the tool results in a conversation, oldest first. */
export const toolResults = (messages: Message[]) => messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");
