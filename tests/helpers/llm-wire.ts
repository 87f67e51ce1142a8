// Streaming wire formats of the providers, as their servers send them (server-sent events), so adapter
// tests and the e2e model server speak what OpenAI, OpenAI-compatible servers and Anthropic speak.
import type { ServerResponse } from "node:http";

export type WireTurn = {
  text?: string;
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
  usage?: { input: number; output: number };
  /** Split the text into this many deltas (default: one per word). */
  chunks?: number;
};

const pieces = (text: string, n?: number): string[] => {
  if (!text) return [];
  if (!n) return text.match(/\S+\s*/g) ?? [text];
  const size = Math.ceil(text.length / n);
  return Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
};

/** OpenAI chat completions (and OpenAI-compatible servers) with `stream: true`: `data:` chunks, then [DONE]. */
export function openaiChunks(turn: WireTurn, model = "gpt-4o"): string[] {
  const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const out: unknown[] = [chunk({ role: "assistant", content: "" })];
  for (const p of pieces(turn.text ?? "", turn.chunks)) out.push(chunk({ content: p }));
  (turn.toolCalls ?? []).forEach((c, index) => {
    const args = JSON.stringify(c.args);
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)]) out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  out.push(chunk({}, turn.toolCalls?.length ? "tool_calls" : "stop"));
  const u = turn.usage ?? { input: 10, output: 5 };
  out.push({ ...base, choices: [], usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output } });
  return [...out.map((o) => `data: ${JSON.stringify(o)}\n\n`), "data: [DONE]\n\n"];
}

/** Anthropic messages with `stream: true`: message_start, content blocks with deltas, message_delta, message_stop. */
export function anthropicEvents(turn: WireTurn, model = "claude-haiku-4-5"): string[] {
  const u = turn.usage ?? { input: 10, output: 5 };
  const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const out = [
    ev("message_start", {
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: u.input, output_tokens: 1 },
      },
    }),
  ];
  let index = 0;
  if (turn.text) {
    out.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const p of pieces(turn.text, turn.chunks)) out.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: p } }));
    out.push(ev("content_block_stop", { index }));
    index++;
  }
  for (const c of turn.toolCalls ?? []) {
    out.push(ev("content_block_start", { index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } }));
    out.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(c.args) } }));
    out.push(ev("content_block_stop", { index }));
    index++;
  }
  out.push(
    ev("message_delta", {
      delta: { stop_reason: turn.toolCalls?.length ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: u.output },
    }),
  );
  out.push(ev("message_stop", {}));
  return out;
}

/**
 * Writes SSE events with a pause between them (a model that takes time per token). cutAfter: end the
 * connection after that many events, as a server or proxy that dies mid-stream does.
 */
export async function writeStream(res: ServerResponse, events: string[], opts: { delayMs?: number; cutAfter?: number } = {}) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [i, e] of events.entries()) {
    if (opts.cutAfter !== undefined && i >= opts.cutAfter) {
      res.destroy();
      return;
    }
    if (res.destroyed) return;
    res.write(e);
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
  }
  res.end();
}

/** OpenAI Responses with `stream: true`: response.created, output items with their deltas, response.completed. */
export function openaiResponsesEvents(turn: WireTurn, responseId = "resp_1", model = "gpt-4o"): string[] {
  const ev = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const out = [ev({ type: "response.created", response: { id: responseId, created_at: 1, model, service_tier: null } })];
  let index = 0;
  if (turn.text) {
    const item = { type: "message", id: `msg_${responseId}` };
    out.push(ev({ type: "response.output_item.added", output_index: index, item }));
    for (const p of pieces(turn.text, turn.chunks))
      out.push(ev({ type: "response.output_text.delta", item_id: item.id, output_index: index, content_index: 0, delta: p }));
    out.push(ev({ type: "response.output_item.done", output_index: index, item }));
    index++;
  }
  for (const c of turn.toolCalls ?? []) {
    const args = JSON.stringify(c.args);
    const item = { type: "function_call", id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: "" };
    out.push(ev({ type: "response.output_item.added", output_index: index, item }));
    out.push(ev({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: index, delta: args }));
    out.push(ev({ type: "response.output_item.done", output_index: index, item: { ...item, arguments: args, status: "completed" } }));
    index++;
  }
  const u = turn.usage ?? { input: 10, output: 5 };
  out.push(ev({ type: "response.completed", response: { usage: { input_tokens: u.input, output_tokens: u.output } } }));
  return out;
}
