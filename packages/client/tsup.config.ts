// One build for every kind of project: ESM (.js), CommonJS (.cjs) and declarations for both, an entry per
// adapter. The frameworks are peer dependencies and stay external; shared code sits in one chunk per
// format (splitting), so an adapter and the client share one RuntimeClient and one set of error classes.
import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "openai-agents": "src/adapters/openai-agents.ts",
    langgraph: "src/adapters/langgraph.ts",
    mcp: "src/adapters/mcp-elicitation.ts",
    "ai-sdk": "src/adapters/ai-sdk.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  splitting: true,
  clean: true,
  target: "node20",
  platform: "node",
  sourcemap: true,
});
