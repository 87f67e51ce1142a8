// Keeps notes through an MCP server: the notebook server shipped in scripts/ (stdio). Reading is free;
// every write to the notebook waits for a reviewer (a policy glob on the server's tool names).
import path from "node:path";
import { z } from "zod";
import { defineAgent } from "../lib/agents/define.ts";
import { turnOf, inputOf } from "../lib/agents/demo-kit.ts";
import { toolResults } from "../lib/runner/index.ts";

export default defineAgent(({ dataDir }) => ({
  name: "notebook",
  description: "Reads and writes notes on an MCP server (every write is reviewed)",
  model: "demo:notebook",
  instructions: "Keep the team's notes. Read a note before you change it.",
  mcpServers: [
    {
      name: "notes",
      transport: { type: "stdio", command: process.execPath, args: ["scripts/mcp-notes-server.mjs", path.join(dataDir, "notes.jsonl")] },
    },
  ],
  policy: [{ id: "notebook-writes", tool: "notes__write_*", action: "require_approval", reason: "Writes to the notebook are reviewed" }],
  inputSchema: z.object({
    note: z.string().regex(/^[a-z0-9-]{1,40}$/, "A short id such as standup-notes"),
    text: z.string().trim().min(1, "What should the note say?").max(2000).meta({ display: "long-text" }),
  }),
  demo: (messages, context) => {
    const input = inputOf(messages, context);
    const id = String(input.note ?? "note");
    if (turnOf(messages) === 1)
      return {
        text: `Reading ${id}, then writing it.`,
        toolCalls: [
          { id: "call_read", name: "notes__read_note", args: { id } },
          { id: "call_write", name: "notes__write_note", args: { id, text: String(input.text ?? "") } },
        ],
      };
    const w = toolResults(messages).find((m) => m.tool_call_id === "call_write");
    return { text: w?.success ? `Saved ${id}.` : `Not saved: ${w?.content ?? "no answer"}.` };
  },
}));
