// npm test's deploy step: what an operator does with the image and the compose file, done without Docker.
// The bundle (what the image copies to its WORKDIR) is copied out and started as the image starts it: its
// CMD with the environment its ENV lines set, as an unprivileged user (nobody, when this runs as root) on a
// working tree it cannot write, with a writable folder for the /data volume. SQLite: the image alone, as
// docs/operating.md "Deploy" runs it. PostgreSQL (TEST_POSTGRES_URL): compose.yaml's migrate, web and worker services,
// each with the command and environment the file gives it (the operator's .env supplying only
// NEXTAUTH_SECRET and NEXTAUTH_URL, so AFK_METRICS_TOKEN arrives empty). Then on each: the first admin (on
// SQLite from the bootstrap variables at start, on PostgreSQL from the CLI with a password on stdin), a
// token from the CLI that starts a run over the REST API, the admin signed in in Chromium approving it (the
// last decision resumes it to completion), and a backup.
// Usage: tsx scripts/deploy-check.ts <bundle dir> [sqlite|postgresql]
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { parse } from "yaml";
import { fail, freePort, type Proc, sayer, started, until as poll } from "./check-kit.ts";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const source = path.resolve(process.argv[2] ?? "dist/afk-console");
const say = sayer("deploy-check");
// The deploy waits longer than the bundle check: processes run as another user, migrations first.
const until = <T>(what: string, f: () => Promise<T | undefined | false>) => poll(what, f, 90_000, 300);
const ADMIN = "first-admin@deploy.test";
const ADMIN_PASSWORD = `pw-${Math.random().toString(36).slice(2)}-${Date.now()}`;
const SECRET = `deploy-check-${Math.random().toString(36).slice(2)}-0123456789abcdef`;

// ---- What the image and the compose file say ----

/** The Dockerfile's last stage: its ENV (K=V pairs, continued lines joined), WORKDIR and CMD. */
function imageSpec() {
  const text = readFileSync(path.join(root, "Dockerfile"), "utf8").replace(/\\\n\s*/g, " ");
  const stage = text.slice(text.lastIndexOf("\nFROM "));
  const env: Record<string, string> = {};
  for (const line of stage.split("\n").filter((l) => l.startsWith("ENV ")))
    for (const m of line.slice(4).matchAll(/([A-Z_][A-Z0-9_]*)=("[^"]*"|\S+)/g)) env[m[1]] = m[2].replace(/^"|"$/g, "");
  const cmd = /^CMD (\[.*\])$/m.exec(stage)?.[1] ?? fail("the Dockerfile's last stage has no CMD");
  const workdir = /^WORKDIR (\S+)$/m.exec(stage)?.[1] ?? fail("the Dockerfile's last stage has no WORKDIR");
  return { env, cmd: JSON.parse(cmd) as string[], workdir };
}

type Service = { command?: string[]; environment?: Record<string, string> };
/** compose.yaml's services, each value's `${VAR:?…}` / `${VAR:-default}` filled from the operator's .env
 * after parsing, as compose does (so `${X:-}` is an empty string, not YAML's null). */
function composeSpec(dotenv: Record<string, string>): Record<string, Service> {
  const fill = (v: unknown) =>
    String(v).replace(
      /\$\{([A-Z_][A-Z0-9_]*)(?::([?-])([^}]*))?\}/g,
      (_, name: string, op: string | undefined, arg: string | undefined) =>
        dotenv[name] || (op === "?" ? fail(`compose.yaml needs ${name}: ${arg}`) : (arg ?? "")),
    );
  const { services } = parse(readFileSync(path.join(root, "compose.yaml"), "utf8"), { merge: true }) as {
    services: Record<string, Service>;
  };
  for (const s of Object.values(services))
    if (s.environment) s.environment = Object.fromEntries(Object.entries(s.environment).map(([k, v]) => [k, fill(v)]));
  return services;
}

// ---- Processes as the image runs them ----

// As root, the processes run as nobody (the image's USER is unprivileged too).
const asRoot = process.getuid?.() === 0;
const nobody = asRoot
  ? { uid: Number(execFileSync("id", ["-u", "nobody"]).toString()), gid: Number(execFileSync("id", ["-g", "nobody"]).toString()) }
  : null;
const user = (args: string[]) =>
  nobody ? ["setpriv", `--reuid=${nobody.uid}`, `--regid=${nobody.gid}`, "--clear-groups", "--", ...args] : args;

/** The image's ENV under the service's environment; the container's /data is the volume folder here. */
function containerEnv(image: Record<string, string>, service: Record<string, string>, volume: string): NodeJS.ProcessEnv {
  const merged = { ...image, ...service };
  for (const [k, v] of Object.entries(merged)) merged[k] = v.replace(/(^|:)\/data(\/|$)/, `$1${volume}$2`);
  return { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...merged };
}

function start(name: string, cwd: string, cmd: string[], env: NodeJS.ProcessEnv): Proc {
  const [bin, ...args] = user(cmd.map((a, i) => (i === 0 && a === "node" ? process.execPath : a)));
  return started(name, bin, args, { cwd, env });
}

/** A command in the container (docker exec -i): its output, or a failure with it. */
function exec(cwd: string, cmd: string[], env: NodeJS.ProcessEnv, input = ""): string {
  const [bin, ...args] = user(cmd.map((a, i) => (i === 0 && a === "node" ? process.execPath : a)));
  try {
    return execFileSync(bin, args, { cwd, env, input, encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string };
    return fail(`${cmd.join(" ")} failed:\n${x.stdout ?? ""}${x.stderr ?? ""}`);
  }
}

async function stop(p: Proc) {
  p.child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([p.exit, new Promise<"hung">((r) => (timer = setTimeout(() => r("hung"), 45_000)))]);
  clearTimeout(timer);
  if (code === "hung") {
    p.child.kill("SIGKILL");
    fail(`${p.name} did not exit within 45 s of SIGTERM`);
  }
  if (code !== 0) fail(`${p.name} exited ${code} after SIGTERM:\n${p.out.slice(-20).join("\n")}`);
}

// ---- The operator's steps ----

/** The image's WORKDIR: the bundle copied, readable and not writable by the user it runs as. */
function install(dir: string, workdir: string): { app: string; volume: string } {
  chmodSync(dir, 0o755);
  const app = path.join(dir, workdir.replace(/^\//, ""));
  cpSync(source, app, { recursive: true });
  const volume = path.join(dir, "data");
  mkdirSync(volume);
  if (nobody) chownSync(volume, nobody.uid, nobody.gid);
  else {
    // Not root: the tree is made read-only for this user itself.
    execFileSync("chmod", ["-R", "a-w", app]);
  }
  if (nobody && (statSync(app).uid === nobody.uid || statSync(app).mode & 0o002)) fail("the working tree is writable by the app's user");
  return { app, volume };
}

/** The first admin (made with the CLI, or already made at start from the bootstrap variables: then the
 * web log says so once and the CLI refuses a second), a token, a run started with it, approved in Chromium
 * (the last decision resumes it), and a backup. */
async function operate(label: string, app: string, env: NodeJS.ProcessEnv, base: string, backup: () => string, bootstrapped?: Proc) {
  const afk = (args: string[], input = "") => exec(app, ["node", "scripts/afk.mjs", ...args], env, input);
  const create = ["users", "create", "--email", ADMIN, "--name", "First Admin", "--role", "admin", "--password-stdin"];
  if (bootstrapped) {
    const lines = bootstrapped.out.filter((l) => l.includes('"msg":"first admin created from AFK_BOOTSTRAP_ADMIN_EMAIL"'));
    if (lines.length !== 1 || !lines[0].includes(ADMIN)) fail(`the web log's first-admin lines: ${JSON.stringify(lines)}`);
    let second = "";
    try {
      second = afk(create, "another-password-2026\n");
    } catch (e) {
      second = String(e);
    }
    if (!/has an admin already.*\(409\)/.test(second)) fail(`a second first admin was not refused: ${second}`);
  } else {
    const created = afk(create, `${ADMIN_PASSWORD}\n`);
    if (!created.includes("(the first admin)")) fail(`afk users create: ${created}`);
  }
  const { token } = JSON.parse(afk(["tokens", "create", "--name", "intake", "--role", "submitter", "--json", "--as", ADMIN])) as {
    token: string;
  };
  say(
    `${label}: first admin ${bootstrapped ? "made at start from AFK_BOOTSTRAP_ADMIN_EMAIL (logged once)" : "made with the CLI"}, a token with the CLI`,
  );

  // After the CLI's seconds a kept-alive connection may be closed: a probe first, retried, takes it.
  await until("the server to answer", async () => (await fetch(`${base}/api/health/ready`)).ok);
  const started = await fetch(`${base}/api/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: 9000, reason: "Arrived broken" } }),
  });
  if (started.status !== 201) fail(`POST /api/runs with the CLI's token: HTTP ${started.status} ${await started.text()}`);
  const { id } = (await started.json()) as { id: string };

  const browser = await chromium.launch({
    executablePath: process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--no-first-run"],
  });
  try {
    const page = await browser.newPage({ baseURL: base });
    page.setDefaultTimeout(30_000);
    await page.goto("/login");
    await page.getByLabel("Email").fill(ADMIN);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByTestId("whoami").filter({ hasText: ADMIN }).waitFor();
    await page.goto(`/runs/${id}`);
    await until("the run to pause", async () => {
      await page.reload();
      return (await page.getByTestId("run-state").textContent()) === "paused";
    });
    for (const tool of ["issue_refund", "notify_customer"]) {
      await page.getByTestId(`approval-${tool}`).getByRole("button", { name: "Approve", exact: true }).click();
      await page.getByTestId(`approval-status-${tool}`).filter({ hasText: "approved" }).waitFor();
    }
    // The last decision resumes the run: no Resume to press.
    await page.getByTestId("run-state").filter({ hasText: "completed" }).waitFor({ timeout: 60_000 });
  } finally {
    await browser.close();
  }
  say(`${label}: signed in in Chromium, approved run ${id}, which resumed itself to completed`);
  say(`${label}: ${backup()}`);
}

async function sqlite(image: ReturnType<typeof imageSpec>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "afk-deploy-sqlite-"));
  const { app, volume } = install(dir, image.workdir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // docker run -p <port>:3000 -v <volume>:/data -v ./admin-password:/run/secrets/admin-password:ro
  //   -e NEXTAUTH_SECRET -e NEXTAUTH_URL -e AFK_BOOTSTRAP_ADMIN_EMAIL -e AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE afk-console
  // (docs/operating.md "Deploy"); PORT and HOSTNAME stand for the port mapping here, the file's path for the mount.
  const passwordFile = path.join(dir, "admin-password");
  writeFileSync(passwordFile, `${ADMIN_PASSWORD}\n`, { mode: 0o644 });
  const env = containerEnv(
    image.env,
    {
      NEXTAUTH_SECRET: SECRET,
      NEXTAUTH_URL: base,
      AFK_BOOTSTRAP_ADMIN_EMAIL: ADMIN,
      AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE: passwordFile,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
    },
    volume,
  );
  const web = start("web", app, image.cmd, env);
  try {
    await until("the server to be ready", async () => (await fetch(`${base}/api/health/ready`)).ok);
    say(`sqlite: the image's command migrated the volume's database and serves, as uid ${nobody?.uid ?? process.getuid?.()}`);
    const backup = () => exec(app, ["node", "scripts/afk.mjs", "backup", path.join(volume, "backup.db")], env).trim();
    await operate("sqlite", app, env, base, backup, web);
    await stop(web);
  } catch (e) {
    web.child.kill("SIGKILL");
    console.error(`--- web output ---\n${web.out.slice(-40).join("\n")}`);
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(image: ReturnType<typeof imageSpec>, url: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "afk-deploy-pg-"));
  const { app, volume } = install(dir, image.workdir);
  const port = await freePort();
  const opsPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The operator's .env: only what compose.yaml asks for (AFK_METRICS_TOKEN left unset arrives empty).
  const services = composeSpec({ NEXTAUTH_SECRET: SECRET, NEXTAUTH_URL: base });
  // The compose network's "postgres" service is the test's server here.
  const db = (e: Record<string, string> = {}) => ({
    ...e,
    DATABASE_URL: e.DATABASE_URL?.replace(/^postgresql:\/\/[^/]+\/[^?]*/, url.split("?")[0]) ?? url,
  });
  const envOf = (s: Service, extra: Record<string, string>) => containerEnv(image.env, { ...db(s.environment), ...extra }, volume);
  const webEnv = envOf(services.web, { PORT: String(port), HOSTNAME: "127.0.0.1" });
  const procs: Proc[] = [];
  try {
    exec(app, services.migrate.command ?? fail("compose's migrate has no command"), envOf(services.migrate, {}));
    say("postgresql: compose's migrate service ran");
    if (webEnv.AFK_METRICS_TOKEN !== "") fail("compose passes AFK_METRICS_TOKEN empty when it is unset: the check expects that case");
    procs.push(start("web", app, services.web.command ?? image.cmd, webEnv));
    procs.push(start("worker", app, services.worker.command ?? image.cmd, envOf(services.worker, { AFK_OPS_PORT: String(opsPort) })));
    await until("the web instance to be ready", async () => (await fetch(`${base}/api/health/ready`)).ok);
    await until("the worker to be ready", async () => (await fetch(`http://127.0.0.1:${opsPort}/readyz`)).ok);
    say("postgresql: compose's web and worker are ready (AFK_METRICS_TOKEN empty: metrics off)");
    const pgDump = ["/usr/bin/pg_dump", ...pgBins().map((b) => path.join(b, "pg_dump"))].find((f) => statOk(f));
    await operate("postgresql", app, webEnv, base, () => {
      if (!pgDump) return "backup: no pg_dump here (skipped)";
      const file = path.join(volume, "afk.dump");
      exec(app, [pgDump, "--format=custom", "--file", file, String(webEnv.DATABASE_URL)], webEnv);
      return `backed up with pg_dump: ${statSync(file).size} bytes`;
    });
    for (const p of [...procs].reverse()) await stop(p);
  } catch (e) {
    for (const p of procs) {
      p.child.kill("SIGKILL");
      console.error(`--- ${p.name} output ---\n${p.out.slice(-40).join("\n")}`);
    }
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const statOk = (f: string) => {
  try {
    return statSync(f).isFile();
  } catch {
    return false;
  }
};
const pgBins = () => {
  try {
    return execFileSync("ls", ["/usr/lib/postgresql"], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map((v) => `/usr/lib/postgresql/${v}/bin`);
  } catch {
    return [];
  }
};

const image = imageSpec();
say(`image: ${JSON.stringify(image.cmd)} in ${image.workdir}; ${nobody ? "as nobody (running as root)" : "as this user"}`);
// A second argument picks one of the two (sqlite, postgresql); npm test runs both.
const only = process.argv[3];
if (only !== "postgresql") await sqlite(image);
const pg = only === "sqlite" ? undefined : process.env.TEST_POSTGRES_URL;
if (pg) {
  const name = `afk_deploy_${process.pid}`;
  execFileSync("psql", ["-q", "-d", pg, "-c", `CREATE DATABASE ${name}`]);
  try {
    const u = new URL(pg);
    u.pathname = `/${name}`;
    await postgres(image, u.toString());
  } finally {
    execFileSync("psql", ["-q", "-d", pg, "-c", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
  }
} else say("postgresql: skipped (no TEST_POSTGRES_URL)");
say("ok");
