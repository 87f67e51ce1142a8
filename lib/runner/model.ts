// The provider-neutral model interface, model strings ("provider:model"), prices, retries and fallbacks.
import { ModelCallError } from "./errors.ts";
import type { LlmResponse, Message } from "./messages.ts";

export type ToolSpec = { name: string; description: string; parameters: Record<string, unknown> };

/** What a model adapter is asked: the conversation, the tools, provider tokens and an abort signal. */
export type LlmRequest = {
  model: string; // the model name without the provider prefix
  messages: Message[];
  tools: ToolSpec[];
  sessionToken: string | null;
  checkpointToken: string | null;
  context: Record<string, unknown>;
  signal?: AbortSignal;
  /** Text as it streams in (not checkpointed: the response counts only when complete, at post_llm). */
  onText?: (delta: string) => void;
  /** JSON schema of the agent's structured output: the final answer is JSON of this shape. */
  responseSchema?: Record<string, unknown>;
};

/** A model provider behind one method. Adapters for real providers live in lib/models; the DemoModel is one too. */
export interface ModelAdapter {
  readonly provider: string;
  generate(req: LlmRequest): Promise<Omit<LlmResponse, "model">>;
}

export type ResolvedModel = { requested: string; normalized: string; provider: string; model: string };

const ALIASES: Record<string, string> = {
  openai_compatible: "openai-compatible",
  "openai-compat": "openai-compatible",
  claude: "anthropic",
};

/** "gpt-4o" → openai:gpt-4o; "claude-…" → anthropic; "provider:model" as given; case-folded provider. */
export function resolveModel(requested: string): ResolvedModel {
  const trimmed = requested.trim();
  let provider: string;
  let model: string;
  const i = trimmed.indexOf(":");
  if (i > 0) {
    provider = trimmed.slice(0, i).toLowerCase();
    model = trimmed.slice(i + 1);
  } else {
    provider = trimmed.startsWith("claude") ? "anthropic" : trimmed.startsWith("demo") ? "demo" : "openai";
    model = trimmed;
  }
  provider = ALIASES[provider] ?? provider;
  if (!model) throw new ModelCallError(`Model string ${JSON.stringify(requested)} names no model`, false);
  return { requested, normalized: `${provider}:${model}`, provider, model };
}

/** USD per million tokens (input, output). Unknown models cost 0 and say so in the price source. */
export const PRICES: Record<string, [number, number]> = {
  "openai:gpt-4o": [2.5, 10],
  "openai:gpt-4o-mini": [0.15, 0.6],
  "openai:gpt-4.1": [2, 8],
  "openai:gpt-4.1-mini": [0.4, 1.6],
  "anthropic:claude-sonnet-4-5": [3, 15],
  "anthropic:claude-haiku-4-5": [1, 5],
  "anthropic:claude-opus-4-1": [15, 75],
};

/** The cost of a call in USD from the model's price per million tokens (0 for unknown models). */
export function costUsd(normalizedModel: string, inputTokens: number, outputTokens: number, prices = PRICES): number {
  const p = normalizedModel.startsWith("demo:") ? [0.5, 1.5] : prices[normalizedModel];
  if (!p) return 0;
  return (inputTokens * p[0] + outputTokens * p[1]) / 1_000_000;
}

export type RetryOptions = { maxRetries: number; baseDelayMs: number; sleep?: (ms: number) => Promise<void> };

export type ModelCallOutcome = { response: LlmResponse; resolved: ResolvedModel; attempts: number; errors: string[] };

/**
 * Tries the model, retrying retryable errors with exponential backoff, then each fallback model in turn.
 * A provider that rejects a stale session/checkpoint token fails like any other call: the retry drops the
 * tokens, so the chain goes on without them.
 */
export async function callWithFallback(
  adapters: Record<string, ModelAdapter>,
  chain: string[],
  req: Omit<LlmRequest, "model">,
  retry: RetryOptions,
): Promise<ModelCallOutcome> {
  const sleep = retry.sleep ?? ((ms: number) => abortableSleep(ms, req.signal));
  const errors: string[] = [];
  let attempts = 0;
  for (const requested of chain) {
    const resolved = resolveModel(requested);
    const adapter = adapters[resolved.provider];
    if (!adapter) {
      errors.push(`${resolved.normalized}: no adapter for provider ${resolved.provider}`);
      continue;
    }
    let tokens = { sessionToken: req.sessionToken, checkpointToken: req.checkpointToken };
    for (let attempt = 0; attempt <= retry.maxRetries; attempt++) {
      attempts++;
      try {
        const r = await adapter.generate({ ...req, ...tokens, model: resolved.model });
        return { response: { ...r, model: resolved.normalized }, resolved, attempts, errors };
      } catch (e) {
        // Cancelled (or the lease was lost): no retry, no fallback; the caller decides what it means.
        if (req.signal?.aborted) throw req.signal.reason ?? e;
        const err = e instanceof ModelCallError ? e : new ModelCallError(e instanceof Error ? e.message : String(e), true);
        errors.push(`${resolved.normalized}: ${err.message}`);
        // A stale session/checkpoint token fails the call (checkpoint-schema.md, "Stale session tokens"):
        // the next attempt goes without them, even after an error that is otherwise final.
        const hadTokens = !!(tokens.sessionToken || tokens.checkpointToken);
        tokens = { sessionToken: null, checkpointToken: null };
        if (!err.retryable && !hadTokens) break;
        if (attempt < retry.maxRetries) await sleep(retry.baseDelayMs * 2 ** attempt);
        if (req.signal?.aborted) throw req.signal.reason;
      }
    }
  }
  throw new ModelCallError(`All models failed: ${errors.join("; ")}`, false);
}

/** Resolves after ms, or rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
