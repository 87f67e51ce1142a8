// Real providers through the AI SDK's provider packages (LanguageModelV2), behind the runner's
// provider-neutral ModelAdapter. API keys come from env only and never enter a checkpoint: the adapter
// holds them, the runner stores only the normalized model string.
import "server-only";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, type LanguageModelV2, type LanguageModelV2Prompt } from "@ai-sdk/provider";
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
  constructor(
    readonly provider: string,
    private readonly model: (id: string) => LanguageModelV2,
  ) {}

  async generate(req: LlmRequest): Promise<Omit<LlmResponse, "model">> {
    let result: Awaited<ReturnType<LanguageModelV2["doGenerate"]>>;
    try {
      result = await this.model(req.model).doGenerate({
        prompt: toPrompt(req.messages),
        tools: req.tools.map((t) => ({
          type: "function" as const,
          name: t.name,
          description: t.description,
          inputSchema: t.parameters as never,
        })),
        abortSignal: req.signal,
      });
    } catch (e) {
      if (APICallError.isInstance(e))
        throw new ModelCallError(`${this.provider} ${e.statusCode ?? ""} ${e.message}`.trim(), e.isRetryable, e.statusCode);
      throw new ModelCallError(e instanceof Error ? e.message : String(e), true);
    }
    const text = result.content
      .filter((c) => c.type === "text")
      .map((c) => c.text)
      .join("");
    const toolCalls = result.content
      .filter((c) => c.type === "tool-call")
      .map((c) => {
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
    const input = result.usage.inputTokens ?? 0;
    const output = result.usage.outputTokens ?? 0;
    return {
      text,
      tool_calls: toolCalls,
      finish_reason: FINISH[result.finishReason] ?? "other",
      usage: { input_tokens: input, output_tokens: output, total_tokens: result.usage.totalTokens ?? input + output },
      session_token: null,
      checkpoint_token: null,
      structured: null,
    };
  }
}

export type ProviderEnv = {
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  OPENAI_COMPATIBLE_BASE_URL?: string;
  OPENAI_COMPATIBLE_API_KEY?: string;
};

// Adapters for every provider the environment configures; `demo` is added by the runtime.
export function providerAdapters(env: ProviderEnv, fetchImpl?: typeof fetch): Record<string, ModelAdapter> {
  const out: Record<string, ModelAdapter> = {};
  if (env.OPENAI_API_KEY) {
    const p = createOpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL, fetch: fetchImpl });
    out.openai = new AiSdkAdapter("openai", (id) => p.chat(id));
  }
  if (env.ANTHROPIC_API_KEY) {
    const p = createAnthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL, fetch: fetchImpl });
    out.anthropic = new AiSdkAdapter("anthropic", (id) => p(id));
  }
  if (env.OPENAI_COMPATIBLE_BASE_URL) {
    const p = createOpenAICompatible({
      name: "openai-compatible",
      baseURL: env.OPENAI_COMPATIBLE_BASE_URL,
      apiKey: env.OPENAI_COMPATIBLE_API_KEY,
      fetch: fetchImpl,
    });
    out["openai-compatible"] = new AiSdkAdapter("openai-compatible", (id) => p.chatModel(id));
  }
  return out;
}
