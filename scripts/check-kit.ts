// What the CI scripts that start the bundle as a deployment would (bundle-check, deploy-check) share: a
// failure with its reason, polling with a deadline, a free port, a process whose output is kept.
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { createServer } from "node:net";

export function fail(m: string): never {
  throw new Error(m);
}

/** A line with the seconds since the script started, e.g. "deploy-check: web ready (12.3 s)". */
export function sayer(prefix: string): (m: string) => void {
  const t0 = Date.now();
  return (m) => console.log(`${prefix}: ${m} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

/** Polls `f` until it returns something truthy; fails naming `what` (and the last error) at the deadline. */
export async function until<T>(what: string, f: () => Promise<T | undefined | false>, ms = 60_000, everyMs = 250): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return fail(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === "object" && a ? a.port : 0));
    });
  });

export type Proc = { name: string; child: ChildProcess; out: string[]; exit: Promise<number | null> };

/** A started process with every line it printed (stdout and stderr) kept for the checks. */
export function started(name: string, bin: string, args: string[], opts: SpawnOptions): Proc {
  const child = spawn(bin, args, opts);
  const out: string[] = [];
  const take = (b: Buffer) => out.push(...b.toString().split("\n").filter(Boolean));
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  return { name, child, out, exit: new Promise((r) => child.on("exit", (code) => r(code))) };
}
