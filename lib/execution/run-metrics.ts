// What the runner's events say about model calls and tools, as metrics: the runner
// knows nothing of them (it reports events; the worker passes each one here).
import { metrics } from "../metrics.ts";
import { type RunEvent, resolveModel } from "../runner/index.ts";

type OpenCall = { startedMs: number; model: string };

// A model call that started and has not completed, per run (subagent runs included); a call still open when
// its run pauses or ends did not complete.
const ENDS = new Set(["run_paused", "run_completed", "run_failed", "run_cancelled"]);
const MAX_OPEN = 10_000;

export class RunMetrics {
  private readonly open = new Map<string, OpenCall>();

  event(e: RunEvent) {
    switch (e.type) {
      case "llm_called":
        if (this.open.size >= MAX_OPEN) this.open.clear(); // runs abandoned mid-call (lease lost) leave no end
        this.open.set(e.runId, { startedMs: performance.now(), model: e.message });
        return;
      case "llm_completed":
        return this.modelCall(e.runId, usageOf(e.data.usage));
      case "tool_completed":
        if (e.data.replayed || typeof e.data.latency_ms !== "number") return;
        metrics().toolDuration.observe(
          { tool: String(e.data.tool_name), outcome: e.data.success ? "ok" : "error" },
          e.data.latency_ms / 1000,
        );
        return;
      default:
        if (ENDS.has(e.type) && this.open.has(e.runId)) this.modelCall(e.runId, null, "_OTHER");
    }
  }

  // Labelled with the agent's model, the one asked first (retries and fallbacks are part of the operation).
  private modelCall(runId: string, usage: { input: number; output: number } | null, errorType?: string) {
    const call = this.open.get(runId);
    if (!call) return;
    this.open.delete(runId);
    const asked = resolveModel(call.model);
    const base = { gen_ai_operation_name: "chat", gen_ai_provider_name: asked.provider, gen_ai_request_model: asked.model };
    const m = metrics();
    m.genAiDuration.observe({ ...base, error_type: errorType ?? "" }, (performance.now() - call.startedMs) / 1000);
    if (!usage) return;
    m.genAiTokens.observe({ ...base, gen_ai_token_type: "input" }, usage.input);
    m.genAiTokens.observe({ ...base, gen_ai_token_type: "output" }, usage.output);
  }
}

function usageOf(u: unknown): { input: number; output: number } | null {
  const v = (u ?? {}) as { input_tokens?: unknown; output_tokens?: unknown };
  return typeof v.input_tokens === "number" && typeof v.output_tokens === "number"
    ? { input: v.input_tokens, output: v.output_tokens }
    : null;
}
