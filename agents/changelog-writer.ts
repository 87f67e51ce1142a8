// Writes release notes; only release-coordinator delegates to it.
import { defineAgent } from "../lib/agents/define.ts";
import { lastUser } from "../lib/agents/demo-kit.ts";

export default defineAgent({
  name: "changelog-writer",
  description: "Writes release notes",
  model: "demo:changelog-writer",
  instructions: "Write short release notes.",
  startable: false,
  demo: (messages) => ({ text: `Release notes: ${lastUser(messages).slice(0, 200)} — bug fixes and improvements.` }),
});
