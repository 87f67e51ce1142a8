// Real providers through the AI SDK's provider packages (LanguageModelV2), behind the runner's
// provider-neutral ModelAdapter. API keys come from env only and never enter a checkpoint: the adapter
// holds them, the runner stores only the normalized model string.
import "server-only";
import { APICallError, type LanguageModelV2, type LanguageModelV2Prompt, type LanguageModelV2Usage } from "@ai-sdk/provider";
import { type LlmRequest, type LlmResponse, type Message, type ModelAdapter, ModelCallError } from "../runner/index.ts";

export function toPrompt(messages: Message[]): LanguageModelV2Prompt {
  return messages.map((m) => {
    switch (m.role) {
      case "system":
        return { role: "system", content: m.content };
      case "user":
        return { role: "user", content: [{ type: "text", text: m.content }] };
      case "assistant":
        return {
          role: "assistant",
          content: [
            ...(m.content ? [{ type: "text" as const, text: m.content }] : []),
            ...m.tool_calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.id, toolName: c.name, input: c.args })),
          ],
        };
      case "tool":
        return {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: m.tool_call_id,
              toolName: m.name,
              output: m.success ? { type: "text", value: m.content } : { type: "error-text", value: m.content },
            },
          ],
        };
      default:
        throw new Error(`Unknown message role ${(m as { role: string }).role}`);
    }
  });
}

const FINISH: Record<string, LlmResponse["finish_reason"]> = {
  stop: "stop",
  "tool-calls": "tool_calls",
  length: "length",
  "content-filter": "content_filter",
  error: "error",
};

export class AiSdkAdapter implements ModelAdapter {
  /**
   * sessions: the provider keeps the conversation server-side (OpenAI Responses): a response's id is the
   * run's session token, and the next call sends only what came after that response with
   * `previous_response_id`. A token the provider no longer knows fails the call; the runner retries
   * without it (the whole conversation again), then goes on down the fallback chain.
   */
  constructor(
    readonly provider: string,
    private readonly model: (id: string) => Promise<LanguageModelV2>,
    private readonly opts: { sessions?: boolean } = {},
  ) {}

  // Streams the call (doStream) and assembles the response the runner checkpoints at post_llm: text
  // deltas go to req.onText as they arrive; tool calls count only once complete. A stream cut off midway
  // is a retryable error, so nothing half-received is ever stored.
  async generate(req: LlmRequest): Promise<Omit<LlmResponse, "model">> {
    let text = "";
    const calls: { toolCallId: string; toolName: string; input: string }[] = [];
    let finish: { finishReason: string; usage: LanguageModelV2Usage } | null = null;
    let responseId: string | null = null;
    const session = this.opts.sessions ? req.sessionToken : null;
    try {
      const { stream } = await (await this.model(req.model)).doStream({
        prompt: toPrompt(session ? sinceLastResponse(req.messages) : req.messages),
        tools: req.tools.map((t) => ({
          type: "function" as const,
          name: t.name,
          description: t.description,
          inputSchema: t.parameters as never,
        })),
        responseFormat: req.responseSchema ? { type: "json", schema: req.responseSchema as never, name: "output" } : undefined,
        providerOptions: session ? { openai: { previousResponseId: session } } : undefined,
        abortSignal: req.signal,
      });
      const reader = stream.getReader();
      for (;;) {
        const { done, value: part } = await reader.read();
        if (done) break;
        if (part.type === "text-delta") {
          text += part.delta;
          if (part.delta) req.onText?.(part.delta);
        } else if (part.type === "tool-call") calls.push(part);
        else if (part.type === "response-metadata" && part.id) responseId = part.id;
        else if (part.type === "finish") finish = part;
        else if (part.type === "error") throw part.error;
      }
    } catch (e) {
      if (req.signal?.aborted) throw req.signal.reason ?? e;
      if (APICallError.isInstance(e))
        throw new ModelCallError(`${this.provider} ${e.statusCode ?? ""} ${e.message}`.trim(), e.isRetryable, e.statusCode);
      throw new ModelCallError(e instanceof Error ? e.message : String(e), true);
    }
    if (!finish) throw new ModelCallError(`${this.provider} stream ended before the response was complete`, true);
    const toolCalls = calls.map((c) => {
      let args: unknown;
      try {
        args = JSON.parse(c.input || "{}");
      } catch {
        throw new ModelCallError(`${this.provider} returned tool call arguments that are not JSON`, true);
      }
      if (!args || typeof args !== "object" || Array.isArray(args))
        throw new ModelCallError(`${this.provider} returned non-object tool arguments`, true);
      return { id: c.toolCallId, name: c.toolName, args: args as Record<string, unknown> };
    });
    const input = finish.usage.inputTokens ?? 0;
    const output = finish.usage.outputTokens ?? 0;
    return {
      text,
      tool_calls: toolCalls,
      finish_reason: FINISH[finish.finishReason] ?? "other",
      usage: { input_tokens: input, output_tokens: output, total_tokens: finish.usage.totalTokens ?? input + output },
      session_token: this.opts.sessions ? responseId : null,
      checkpoint_token: null,
      structured: req.responseSchema && toolCalls.length === 0 ? parseStructured(text, this.provider) : null,
    };
  }
}

// With a previous response id the provider has everything up to that response: send the system prompt
// (instructions are not carried over) and what came after the last assistant turn (tool results).
function sinceLastResponse(messages: Message[]): Message[] {
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === "assistant") last = i;
  });
  return last < 0 ? messages : [...messages.filter((m) => m.role === "system"), ...messages.slice(last + 1)];
}

function parseStructured(text: string, provider: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ModelCallError(`${provider} answered with text that is not the JSON the agent's output schema asks for`, true);
  }
  if (!v || typeof v !== "object" || Array.isArray(v))
    throw new ModelCallError(`${provider} answered with JSON that is not an object`, true);
  return v as Record<string, unknown>;
}

export type ProviderEnv = {
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  OPENAI_COMPATIBLE_BASE_URL?: string;
  OPENAI_COMPATIBLE_API_KEY?: string;
};

// A provider's SDK is loaded on its first call: every process (the CLI, a worker, the crash test's dozens
// of short-lived ones) otherwise paid ~170 ms at start for SDKs most configurations never use.
const once = <T>(load: () => Promise<T>) => {
  let p: Promise<T> | null = null;
  return () => {
    p ??= load();
    return p;
  };
};

// Adapters for every provider the environment configures; `demo` is added by the runtime.
export function providerAdapters(env: ProviderEnv, fetchImpl?: typeof fetch): Record<string, ModelAdapter> {
  const out: Record<string, ModelAdapter> = {};
  if (env.OPENAI_API_KEY) {
    const p = once(async () =>
      (await import("@ai-sdk/openai")).createOpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL, fetch: fetchImpl }),
    );
    // The Responses API: it keeps conversations server-side, so runs carry a session token.
    out.openai = new AiSdkAdapter("openai", async (id) => (await p()).responses(id), { sessions: true });
  }
  if (env.ANTHROPIC_API_KEY) {
    const p = once(async () =>
      (await import("@ai-sdk/anthropic")).createAnthropic({
        apiKey: env.ANTHROPIC_API_KEY,
        baseURL: env.ANTHROPIC_BASE_URL,
        fetch: fetchImpl,
      }),
    );
    out.anthropic = new AiSdkAdapter("anthropic", async (id) => (await p())(id));
  }
  if (env.OPENAI_COMPATIBLE_BASE_URL) {
    const p = once(async () =>
      (await import("@ai-sdk/openai-compatible")).createOpenAICompatible({
        name: "openai-compatible",
        baseURL: env.OPENAI_COMPATIBLE_BASE_URL ?? "",
        apiKey: env.OPENAI_COMPATIBLE_API_KEY,
        fetch: fetchImpl,
      }),
    );
    out["openai-compatible"] = new AiSdkAdapter("openai-compatible", async (id) => (await p()).chatModel(id));
  }
  return out;
}
