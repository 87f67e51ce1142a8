// Plans a release with both gates of the policy: its delegation to changelog-writer waits for a reviewer
// (who may edit the task), and every model call after the first waits too (as a costly model would).
import { defineAgent } from "../lib/agents/define.ts";
import { turnOf, inputOf } from "../lib/agents/demo-kit.ts";
import { delegateToolName, toolResults } from "../lib/runner/index.ts";
import { deployInput } from "./deploy-bot.ts";

export default defineAgent({
  name: "release-planner",
  description: "Plans a release: a reviewed delegation to changelog-writer, then a reviewed second model call",
  model: "demo:release-planner",
  instructions: "Plan a release. Ask changelog-writer for the notes.",
  subagents: ["changelog-writer"],
  policy: [
    {
      id: "reviewed-delegation",
      gate: "subagent",
      subagent: "changelog-writer",
      action: "require_approval",
      reason: "Delegations are reviewed",
    },
    {
      id: "costly-model",
      gate: "llm",
      when: (f) => f.llm_calls >= 1,
      action: "require_approval",
      reason: "Model calls after the first are reviewed (a costly model)",
    },
  ],
  // A release goes on when its manager says so: once its requests are decided the run waits, "Ready to
  // resume", for someone to press Resume.
  autoResume: false,
  inputSchema: deployInput.pick({ service: true, version: true }),
  demo: (messages, context) => {
    const input = inputOf(messages, context);
    if (turnOf(messages) === 1)
      return {
        text: "Asking for the release notes.",
        toolCalls: [
          {
            id: "call_notes",
            name: delegateToolName({ name: "changelog-writer" }),
            args: { task: `Notes for ${String(input.service)} ${String(input.version)}` },
          },
        ],
      };
    const notes = toolResults(messages).find((m) => m.tool_call_id === "call_notes");
    return { text: `Plan for ${String(input.service)} ${String(input.version)}: ${notes?.content ?? "no notes"}` };
  },
});
