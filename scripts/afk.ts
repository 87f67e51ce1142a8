// The runner's CLI against the configured database (DATABASE_URL).
//   npm run afk -- run <agent> --input '<json>'      start a run (prints the result)
//   npm run afk -- resume <runId>                    resume from the latest checkpoint
//   npm run afk -- show <runId>                      the latest checkpoint and pending approvals
//   npm run afk -- checkpoints <runId> [--json]      every checkpoint in order
//   npm run afk -- approve|reject <runId> <toolCallId> [--by who] [--args '<json>'] [--reason text]
//   npm run afk -- prune --days N                    retention: prune checkpoints of terminal runs older than N days
//   npm run afk -- sweep                             apply approval deadlines and resume what is ready
import { createDb } from "../lib/db/client.ts";
import { createRuntime } from "../lib/runtime.ts";
import { env } from "../lib/env.ts";
import { RunExecutor } from "../lib/runs/executor.ts";
import { pruneCheckpoints } from "../lib/runs/retention.ts";
import { sweep } from "../lib/runs/sweep.ts";
import { approvalIdOf, decideApproval, listApprovals, listCheckpoints, loadLatestCheckpoint } from "../lib/runner/index.ts";

const [cmd, ...rest] = process.argv.slice(2);
const flag = (name: string) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? rest[i + 1] : undefined;
};
const db = createDb();
const rt = createRuntime(db);
const out = (v: unknown) => console.log(JSON.stringify(v, null, 2));

async function main() {
  switch (cmd) {
    case "run": {
      const agent = rt.agent(rest[0]);
      const input = JSON.parse(flag("input") ?? "{}");
      const parsed = agent.inputSchema ? agent.inputSchema.parse(input) : input;
      const runId = flag("run-id");
      const r = await rt.runner.run(agent, {
        userMessage: agent.toUserMessage ? agent.toUserMessage(parsed) : JSON.stringify(parsed),
        context: { input: parsed },
        runId,
      });
      return out(r);
    }
    case "resume": {
      const runId = rest[0];
      return out(await rt.runner.resume(await rt.agentForRun(runId, runId), { runId, threadId: runId }));
    }
    case "show": {
      const runId = rest[0];
      return out({ latest: await loadLatestCheckpoint(rt.store, runId, runId), approvals: await listApprovals(rt.store, runId, runId) });
    }
    case "checkpoints": {
      const cps = await listCheckpoints(rt.store, rest[0], rest[0]);
      if (rest.includes("--json")) return out(cps);
      for (const c of cps)
        console.log(
          `${String(c.seq).padStart(4)} step ${String(c.step).padStart(3)} ${c.phase.padEnd(20)} ${new Date(c.timestamp_ms).toISOString()}`,
        );
      return;
    }
    case "approve":
    case "reject": {
      const [runId, toolCallId] = rest;
      const agent = await rt.agentForRun(runId, runId);
      const approval = (await listApprovals(rt.store, runId, runId)).find((a) => a.tool_call_id === toolCallId);
      const tool = agent.tools.find((t) => t.name === approval?.tool_name);
      const args = flag("args");
      return out(
        await decideApproval(rt.store, runId, await approvalIdOf(rt.store, runId, runId, toolCallId), tool, {
          by: flag("by") ?? "cli",
          decision: cmd,
          reason: flag("reason"),
          args: args ? JSON.parse(args) : undefined,
        }),
      );
    }
    case "prune": {
      const days = Number(flag("days") ?? env().AFK_RETENTION_DAYS);
      if (!Number.isInteger(days) || days < 0) throw new Error("--days N (a whole number) or AFK_RETENTION_DAYS is required");
      return out(await pruneCheckpoints(db, { olderThanDays: days }));
    }
    case "sweep": {
      const ex = new RunExecutor(db);
      const r = await sweep(ex.context);
      await ex.idle();
      return out(r);
    }
    default:
      console.error("usage: afk run|resume|show|checkpoints|approve|reject|prune|sweep …");
      process.exitCode = 2;
  }
}

main()
  .catch((e) => {
    console.error(`${e?.name ?? "Error"}: ${e?.message ?? e}`);
    process.exitCode = 1;
  })
  .finally(() => db.$disconnect());
