// A process that drives the runner directly on DATABASE_URL, for tests/scenarios/crash.test.ts: it is killed at a
// failpoint (AFK_FAILPOINT) and a new one resumes the run. Not the CLI: the CLI acts through the services
// (Run rows, leases, audit); this exercises the runner's own durability across processes, nothing else.
//   node --conditions=react-server --import tsx tests/helpers/runner-process.ts run <agent> --input '<json>' --run-id <id>
//   node --conditions=react-server --import tsx tests/helpers/runner-process.ts resume <runId>
// Prints the runner's AgentResult as JSON.
import { createDb } from "../../lib/db/client.ts";
import { createRuntime } from "../../lib/runtime.ts";

const [cmd, ...rest] = process.argv.slice(2);
const flag = (name: string) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? rest[i + 1] : undefined;
};
const db = createDb();
const rt = createRuntime(db);

async function main() {
  if (cmd === "run") {
    const agent = rt.agent(rest[0]);
    const input = JSON.parse(flag("input") ?? "{}");
    const parsed = agent.inputSchema ? agent.inputSchema.parse(input) : input;
    return rt.runner.run(agent, {
      userMessage: agent.toUserMessage ? agent.toUserMessage(parsed) : JSON.stringify(parsed),
      context: { input: parsed },
      runId: flag("run-id"),
    });
  }
  if (cmd === "resume") {
    const runId = rest[0];
    return rt.runner.resume(await rt.agentForRun(runId, runId), { runId, threadId: runId });
  }
  throw new Error("usage: runner-process.ts run <agent> --input <json> --run-id <id> | resume <runId>");
}

main()
  .then((r) => console.log(JSON.stringify(r, null, 2)))
  .catch((e) => {
    console.error(`${e?.name ?? "Error"}: ${e?.message ?? e}`);
    process.exitCode = 1;
  })
  .finally(() => db.$disconnect());
