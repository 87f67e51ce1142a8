// A local OpenAI-compatible model server for the e2e suite: POST /v1/chat/completions with stream: true
// answers in the chat-completions streaming wire format (tests/helpers/llm-wire.ts), word by word with a
// pause, as a model on a team's own network does. Its "model" triages support tickets for the
// ticket-triage agent: the first turn files the ticket (a tool call), the next one says what was filed.
// A ticket whose subject says "slow" streams one word every 3 s (the cancel test stops it). GET /stats
// counts requests and the ones the client hung up on.
import { createServer } from "node:http";
import { openaiChunks, writeStream } from "../tests/helpers/llm-wire.ts";

const port = Number(process.argv[2] ?? 3199);
const stats = { requests: 0, aborted: 0 };

type Msg = { role: string; content?: string | { text?: string }[] | null; tool_call_id?: string };
const textOf = (m: Msg) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join(""));

function answer(messages: Msg[]) {
  const ticket = textOf(messages.find((m) => m.role === "user") ?? { role: "user" });
  const subject = /^Subject: (.*)$/m.exec(ticket)?.[1] ?? "ticket";
  const queue = /charge|refund|invoice|bill/i.test(ticket) ? "billing" : /deliver|parcel|ship/i.test(ticket) ? "shipping" : "technical";
  const priority = /urgent|twice|asap|down/i.test(ticket) ? "urgent" : "normal";
  const result = messages.find((m) => m.role === "tool");
  if (!result) {
    return {
      text: `Reading the ticket "${subject}". It belongs in ${queue} and reads as ${priority}, so I am filing it there now.`,
      toolCalls: [{ id: "call_file", name: "file_ticket", args: { queue, priority, summary: subject } }],
    };
  }
  let id = "?";
  try {
    id = String(JSON.parse(textOf(result)).ticket_id ?? "?");
  } catch {}
  return { text: `Filed "${subject}" in ${queue} as ${priority} (ticket ${id}).` };
}

createServer(async (req, res) => {
  if (req.url === "/health") return res.end("ok");
  if (req.url === "/stats") return res.end(JSON.stringify(stats));
  let body = "";
  for await (const chunk of req) body += chunk;
  if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
    res.writeHead(404, { "content-type": "application/json" });
    return res.end(JSON.stringify({ error: { message: "not found" } }));
  }
  stats.requests++;
  const parsed = JSON.parse(body || "{}") as { model?: string; messages?: Msg[] };
  const messages = parsed.messages ?? [];
  const turn = answer(messages);
  const slow = /Subject: .*slow/i.test(textOf(messages.find((m) => m.role === "user") ?? { role: "user" }));
  let finished = false;
  res.on("finish", () => (finished = true));
  res.on("close", () => {
    if (!finished) stats.aborted++;
  });
  await writeStream(res, openaiChunks({ ...turn, usage: { input: 120, output: 40 } }, parsed.model), { delayMs: slow ? 3000 : 120 });
}).listen(port, "127.0.0.1", () => console.log(`model server on ${port}`));
