// Delegates release notes and a production deployment to two subagents.
import { defineAgent } from "../lib/agents/define.ts";
import { turnOf, inputOf } from "../lib/agents/demo-kit.ts";
import { delegateToolName, toolResults } from "../lib/runner/index.ts";
import { deployInput } from "./deploy-bot.ts";

export default defineAgent({
  name: "release-coordinator",
  description: "Delegates release notes and a production deployment to two subagents",
  model: "demo:release-coordinator",
  instructions: "Coordinate a release with your subagents.",
  subagents: ["changelog-writer", "deploy-bot"],
  inputSchema: deployInput.pick({ service: true, version: true }),
  demo: (messages, context) => {
    const input = inputOf(messages, context);
    if (turnOf(messages) === 1) {
      return {
        text: "Delegating notes and deployment.",
        toolCalls: [
          {
            id: "call_notes",
            name: delegateToolName({ name: "changelog-writer" }),
            args: { task: `Notes for ${input.service} ${input.version}` },
          },
          {
            id: "call_ship",
            name: delegateToolName({ name: "deploy-bot" }),
            args: { task: JSON.stringify({ service: input.service, version: input.version, environment: "production" }) },
          },
        ],
      };
    }
    const r = toolResults(messages);
    return {
      text: `Release of ${input.service} ${input.version}: ${r.map((m) => `${m.name}=${m.success ? "ok" : "failed"}`).join(", ")}.`,
    };
  },
});
