// `next dev` for the dev-mode walk, started by the spec itself (not a Playwright webServer, which would
// start for every project and hand its output only to the reporter): its own SQLite file, offline, and
// every line it prints kept in order, so the spec reads what each page made the server say.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

// Terminal colour codes, should a library print them anyway.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

export type LogLine = { stream: "stdout" | "stderr"; text: string };

export class DevServer {
  readonly lines: LogLine[] = [];
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> | null = null;

  constructor(
    readonly port: number,
    private readonly env: Record<string, string | undefined>,
  ) {}

  get url() {
    return `http://localhost:${this.port}`;
  }

  async start(timeoutMs = 180_000) {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...this.env,
      // next dev's own mode (Playwright's runner may have set another, which next dev warns about).
      NODE_ENV: "development",
      NEXT_TELEMETRY_DISABLED: "1",
      // Plain lines to read (Playwright's worker may have asked for colours).
      FORCE_COLOR: "0",
      NO_COLOR: "1",
      NODE_OPTIONS: `--require ${path.join(import.meta.dirname, "offline.cjs")}`,
    };
    execFileSync(process.execPath, ["scripts/db.mjs", "reset"], { cwd: root, env, stdio: "pipe" });
    const child = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "dev", "-p", String(this.port)], {
      cwd: root,
      env,
      // Its own process group: stop() ends next dev and the server process it forks, nothing else.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    for (const stream of ["stdout", "stderr"] as const) {
      let rest = "";
      child[stream]?.setEncoding("utf8");
      child[stream]?.on("data", (chunk: string) => {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop() ?? "";
        for (const line of parts) {
          const text = line.replace(ANSI, "");
          if (text.trim()) this.lines.push({ stream, text });
        }
      });
    }
    process.once("exit", () => this.kill("SIGKILL"));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`next dev exited (${child.exitCode}):\n${this.text()}`);
      const ok = await fetch(`${this.url}/api/health`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`next dev did not answer /api/health in ${timeoutMs} ms:\n${this.text()}`);
  }

  /** The log as printed, `from` a line index on. */
  text(from = 0) {
    return this.lines
      .slice(from)
      .map((l) => `${l.stream}: ${l.text}`)
      .join("\n");
  }

  private kill(signal: NodeJS.Signals) {
    const pid = this.child?.pid;
    if (pid && this.child?.exitCode === null)
      try {
        process.kill(-pid, signal);
      } catch {
        // already gone
      }
  }

  async stop() {
    this.kill("SIGTERM");
    const timer = setTimeout(() => this.kill("SIGKILL"), 5_000);
    await this.exited;
    clearTimeout(timer);
  }
}
