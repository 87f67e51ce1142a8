// The CLI: arguments → a command → the backend (local services or the REST API, one interface) → printed.
// Readable output by default, the API's answer as JSON with --json; an error is one line on stderr and a
// non-zero exit (1: refused or failed, 2: wrong use of the CLI).
import type { CliEnv } from "../env.ts";
import type { RunView } from "../dto.ts";
import { type Parsed, flag, has, jsonFlag, parseArgs, positional } from "./args.ts";
import { ADMIN_COMMANDS, ADMIN_USAGE } from "./admin.ts";
import { type Backend, CliError, type DecisionBody, type Query, UsageError } from "./backend.ts";
import type { Command, Ctx, Io } from "./command.ts";
import { printCheckpoints, printDecision, printInbox, printRun, printRuns } from "./print.ts";

export const USAGE = `afk — the AFK Console from a terminal

Who acts:
  AFK_URL + AFK_TOKEN     through a console's REST API, as the token's user (like gh or temporal)
  --as <email>, AFK_ACTOR  on DATABASE_URL directly, as that user (existing, active; their role applies)

Commands:
  start <agent> --input '<json>' [--wait] [--idempotency-key K]   start a run (alias: run)
  runs [--state S] [--agent A] [--submitter E] [--from D] [--to D] [--q PREFIX] [--take N] [--cursor C]
  show <run>                                the run's state, usage and approvals
  checkpoints <run> [--take N] [--cursor C] its checkpoints (seq, step, phase, time): fork from one
  inbox [--agent A] [--tool T] [--cursor C] approvals waiting for a decision
  approve <approval> [--args '<json>'] [--hash H] [--wait]   approve, optionally with edited arguments
  reject <approval> --reason TEXT [--wait]  reject; the model gets the reason
  respond <approval> (--reason TEXT | --answer '<json>') [--wait]   answer in the tool's place
  resume | cancel | retry <run> [--wait]
  fork <run> --seq N [--wait]               a new run from checkpoint N
  backup <file>                             an online backup of the SQLite database to a new file (local only;
                                            PostgreSQL: pg_dump)
  prune --days N                            retention (local only)
  sweep                                     one deadline/resume sweep (local only)
${ADMIN_USAGE}

Every command takes --json (the API's answer; with --wait the run as GET /api/runs/{id} shows it).
--wait follows the run until it pauses or ends (--timeout S, default 600). On SQLite a run executes in
the CLI's own process, so the CLI always waits for it.`;

const WAIT: Command["flags"] = { wait: "bool", timeout: "value" };
const filters = (p: Parsed, names: string[]): Query =>
  Object.fromEntries(names.flatMap((n) => (flag(p, n) !== undefined ? [[n, flag(p, n)!]] : [])));

function timeoutMs(p: Parsed): number {
  const s = Number(flag(p, "timeout") ?? 600);
  if (!Number.isFinite(s) || s <= 0) throw new UsageError("--timeout is a number of seconds");
  return s * 1000;
}

// After a command that dispatched runId: follow it when asked, or when it executes here (then the CLI
// waits anyway). Readable output shows the run; --json shows it only with --wait.
async function follow(c: Ctx, b: Backend, runId: string, human: string, answer: unknown) {
  if (!has(c.p, "wait") && !b.executesHere) return c.print(human, answer);
  const view: RunView = await b.wait(runId, timeoutMs(c.p));
  c.print(`${human}\n\n${printRun(view)}`, has(c.p, "wait") ? view : answer);
}

const decideCommand = (decision: DecisionBody["decision"]): Command => ({
  flags: { ...WAIT, reason: "value", text: "value", args: "value", answer: "value", hash: "value" },
  async run(c) {
    const id = positional(c.p, 0, "an approval id (afk inbox lists them)");
    const reason = flag(c.p, "reason") ?? flag(c.p, "text");
    const body: DecisionBody = { decision };
    if (reason !== undefined) body.reason = reason;
    const args = jsonFlag(c.p, "args");
    if (args) body.args = args;
    const answer = jsonFlag(c.p, "answer");
    if (answer) body.answer = answer;
    const hash = flag(c.p, "hash");
    if (hash) body.argsHash = hash;
    const b = await c.backend();
    const r = await b.decide(id, body);
    if (r.resumed) await follow(c, b, r.approval.root_run_id, printDecision(r, decision), r);
    else c.print(printDecision(r, decision), r);
  },
});

const operate = (name: "resume" | "cancel" | "retry", words: string): Command => ({
  flags: WAIT,
  async run(c) {
    const runId = positional(c.p, 0, "a run id");
    const b = await c.backend();
    const r = await b[name](runId);
    await follow(c, b, runId, `${words} run ${runId}`, r);
  },
});

const start: Command = {
  flags: { ...WAIT, input: "value", "idempotency-key": "value" },
  async run(c) {
    const agent = positional(c.p, 0, "an agent name");
    const input = jsonFlag(c.p, "input") ?? {};
    const b = await c.backend();
    const r = await b.start(agent, input, { idempotencyKey: flag(c.p, "idempotency-key") });
    await follow(c, b, r.id, `${r.replayed ? "Already started (same idempotency key)" : "Started"} run ${r.id} (${agent})`, r);
  },
};

export const COMMANDS: Record<string, Command> = {
  start,
  run: start,
  runs: {
    flags: { state: "value", agent: "value", submitter: "value", from: "value", to: "value", q: "value", take: "value", cursor: "value" },
    async run(c) {
      const list = await (await c.backend()).runs(filters(c.p, ["state", "agent", "submitter", "from", "to", "q", "take", "cursor"]));
      c.print(printRuns(list), list);
    },
  },
  show: {
    flags: {},
    async run(c) {
      const view = await (await c.backend()).show(positional(c.p, 0, "a run id"));
      c.print(printRun(view), view);
    },
  },
  checkpoints: {
    flags: { take: "value", cursor: "value" },
    async run(c) {
      const page = await (await c.backend()).checkpoints(positional(c.p, 0, "a run id"), filters(c.p, ["take", "cursor"]));
      c.print(printCheckpoints(page), page);
    },
  },
  inbox: {
    flags: { agent: "value", tool: "value", cursor: "value" },
    async run(c) {
      const inbox = await (await c.backend()).inbox(filters(c.p, ["agent", "tool", "cursor"]));
      c.print(printInbox(inbox), inbox);
    },
  },
  approve: decideCommand("approve"),
  reject: decideCommand("reject"),
  respond: decideCommand("respond"),
  resume: operate("resume", "Resuming"),
  cancel: operate("cancel", "Cancelling"),
  retry: operate("retry", "Retrying (from its last good checkpoint)"),
  fork: {
    flags: { ...WAIT, seq: "value" },
    async run(c) {
      const runId = positional(c.p, 0, "a run id");
      const seq = Number(flag(c.p, "seq"));
      if (!Number.isInteger(seq) || seq < 0) throw new UsageError("fork needs --seq N (afk checkpoints <run> lists them)");
      const b = await c.backend();
      const r = await b.fork(runId, seq);
      await follow(c, b, r.id, `Forked run ${r.id} from ${runId} at checkpoint ${seq}`, r);
    },
  },
  backup: {
    flags: {},
    local: true,
    async run(c) {
      const { backupLocal } = await import("./local.ts");
      const r = await backupLocal(positional(c.p, 0, "the file to write the backup to"));
      c.print(`Backed up ${r.source} to ${r.file}: ${r.pages} pages, ${r.bytes} bytes, integrity checked.`, r);
    },
  },
  prune: {
    flags: { days: "value" },
    local: true,
    async run(c) {
      const { pruneLocal, retentionDays } = await import("./local.ts");
      const days = Number(flag(c.p, "days") ?? retentionDays());
      if (!Number.isInteger(days) || days < 0) throw new UsageError("prune needs --days N (a whole number) or AFK_RETENTION_DAYS");
      const r = await pruneLocal(days);
      c.print(`Pruned ${r.checkpoints} checkpoints of ${r.runs} runs that ended more than ${days} days ago.`, r);
    },
  },
  sweep: {
    flags: {},
    local: true,
    async run(c) {
      const { sweepLocal } = await import("./local.ts");
      const r = await sweepLocal();
      c.print(
        `Sweep: ${r.expired} approvals expired, ${r.resumed} runs resumed, ${r.retried} retried, ${r.corrupt} unreadable records set aside.`,
        r,
      );
    },
  },
  ...ADMIN_COMMANDS,
};

/** Runs the CLI; resolves to its exit code. */
export async function main(argv: string[], cfg: CliEnv, io: Io): Promise<number> {
  const [name = "help", ...rest] = argv;
  let json = rest.includes("--json");
  let opened: Backend | null = null;
  try {
    if (name === "help" || name === "--help" || name === "-h" || rest.includes("--help")) {
      io.out(USAGE);
      return 0;
    }
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`unknown command ${name} (afk help lists them)`);
    const p = parseArgs(name, rest, command.flags);
    json = has(p, "json");
    if (command.local && cfg.AFK_URL)
      throw new UsageError(`${name} works on the database itself: unset AFK_URL and run it where DATABASE_URL is`);
    const backend = async () => {
      opened = await openBackend(p, cfg);
      return opened;
    };
    const print = (human: string, answer: unknown) => io.out(json ? JSON.stringify(answer, null, 2) : human);
    await command.run({ p, backend, print, io, as: flag(p, "as") ?? cfg.AFK_ACTOR });
    return 0;
  } catch (e) {
    io.err(errorLine(e, json));
    return e instanceof UsageError ? 2 : 1;
  } finally {
    await (opened as Backend | null)?.close().catch((e: unknown) => io.err(errorLine(e, json)));
  }
}

async function openBackend(p: Parsed, cfg: CliEnv): Promise<Backend> {
  const as = flag(p, "as");
  if (cfg.AFK_URL) {
    if (!cfg.AFK_TOKEN) throw new UsageError("AFK_URL is set but AFK_TOKEN is not: an admin creates tokens under API tokens");
    if (as) throw new UsageError("--as acts on the database; through AFK_URL the token says who acts");
    const { remoteBackend } = await import("./remote.ts");
    return remoteBackend(cfg.AFK_URL, cfg.AFK_TOKEN);
  }
  const email = as ?? cfg.AFK_ACTOR;
  if (!email)
    throw new UsageError("say who acts: --as <email> or AFK_ACTOR (on DATABASE_URL), or AFK_URL and AFK_TOKEN (through a server)");
  const { localBackend } = await import("./local.ts");
  return localBackend(email);
}

function errorLine(e: unknown, json: boolean): string {
  const flat = (s: string) => s.replace(/\s+/g, " ").trim();
  if (e instanceof CliError) {
    if (json)
      return JSON.stringify({
        error: e.message,
        status: e.status,
        ...(e.field ? { field: e.field } : {}),
        ...(e.current ? { current: e.current } : {}),
      });
    return `afk: ${flat(e.field ? `${e.field}: ${e.message}` : e.message)}${e.status ? ` (${e.status})` : ""}`;
  }
  const message = e instanceof Error ? (e instanceof UsageError || e.name === "Error" ? e.message : `${e.name}: ${e.message}`) : String(e);
  return json ? JSON.stringify({ error: flat(message), status: null }) : `afk: ${flat(message)}`;
}
