// Liveness and readiness apart. Liveness answers 200 whatever the database does (an outage must not
// restart healthy processes); readiness is 503 while the database is cut (PostgreSQL through a TCP proxy
// the test closes; a SQLite file that cannot be opened), while a migration of this build is not applied,
// and from SIGTERM on, while the process still drains its runs (a real worker process on PostgreSQL).
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type AddressInfo, type Server, type Socket, connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sub } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, type TestDb } from "../helpers/databases";
import type { AppContext } from "@/lib/context";
import { createDb, type Db } from "@/lib/db/client";
import { getRunRow } from "@/lib/db/runs";
import { liveAnswer, readyAnswer } from "@/lib/ops/server";
import { startDraining } from "@/lib/ops/probes";
import { startRun } from "@/lib/services/start";

const root = path.resolve(import.meta.dirname, "../..");
const pgUrl = process.env.TEST_POSTGRES_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ready = async (ctx: Pick<AppContext, "db" | "queue" | "worker">, provider: "sqlite" | "postgresql") => {
  const a = await readyAnswer(ctx, provider);
  return {
    status: a.status,
    body: JSON.parse(a.body) as {
      ready: boolean;
      draining: boolean;
      database: { ok: boolean };
      migrations: { ok: boolean; pending: string[] };
    },
  };
};
const live = () => liveAnswer().status;

// A TCP proxy to PostgreSQL that the test can cut (every connection dropped, new ones refused) and mend.
function cuttableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  return {
    open,
    url: () => {
      const u = new URL(target.toString());
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server?.close(() => resolve());
      }),
  };
}

describe("probes on SQLite", () => {
  let t: TestDb;
  let ctx: AppContext;
  beforeAll(async () => {
    t = await freshDatabase("sqlite");
    ctx = testContext(t.db);
  });
  afterAll(async () => t?.drop());

  it("ready on a migrated database; live always", async () => {
    expect(await ready(ctx, "sqlite")).toMatchObject({
      status: 200,
      body: { ready: true, database: { ok: true }, migrations: { ok: true, pending: [] } },
    });
    expect(live()).toBe(200);
  });

  it("not ready while a migration of this build is not applied, naming it", async () => {
    const [last] = await t.db.$queryRawUnsafe<{ migration_name: string }[]>(
      `SELECT "migration_name" FROM "_prisma_migrations" ORDER BY "migration_name" DESC LIMIT 1`,
    );
    await t.db.$executeRawUnsafe(
      `UPDATE "_prisma_migrations" SET "rolled_back_at" = CURRENT_TIMESTAMP WHERE "migration_name" = ?`,
      last.migration_name,
    );
    try {
      expect(await ready(ctx, "sqlite")).toMatchObject({
        status: 503,
        body: { ready: false, migrations: { ok: false, pending: [last.migration_name] } },
      });
      expect(live()).toBe(200);
    } finally {
      await t.db.$executeRawUnsafe(
        `UPDATE "_prisma_migrations" SET "rolled_back_at" = NULL WHERE "migration_name" = ?`,
        last.migration_name,
      );
    }
    expect((await ready(ctx, "sqlite")).status).toBe(200);
  });

  it("not ready when the database file cannot be opened; still live", async () => {
    const gone: Db = createDb("file:./data/test/no-such-dir/nothing.db");
    try {
      expect(await ready({ ...ctx, db: gone }, "sqlite")).toMatchObject({ status: 503, body: { ready: false, database: { ok: false } } });
      expect(live()).toBe(200);
    } finally {
      await gone.$disconnect().catch(() => undefined);
    }
  });
});

describe.skipIf(!pgUrl)("probes on PostgreSQL", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase("postgresql");
  });
  afterAll(async () => t?.drop());

  it("readiness follows the database through a cut and back; liveness never moves", async () => {
    const proxy = cuttableProxy(new URL(t.url));
    await proxy.open();
    const db = createDb(proxy.url());
    const ctx = testContext(db);
    try {
      expect((await ready(ctx, "postgresql")).status).toBe(200);
      await proxy.cut();
      const cut = await ready(ctx, "postgresql");
      expect(cut).toMatchObject({ status: 503, body: { ready: false, database: { ok: false } } });
      expect(live()).toBe(200);
      await proxy.open();
      let back = await ready(ctx, "postgresql");
      for (let i = 0; i < 20 && back.status !== 200; i++) {
        await sleep(250);
        back = await ready(ctx, "postgresql");
      }
      expect(back).toMatchObject({ status: 200, body: { ready: true } });
    } finally {
      await proxy.cut();
      await db.$disconnect().catch(() => undefined);
    }
  });

  it("a worker process is not ready from SIGTERM on while it drains its run, live meanwhile, and exits once it is done", async () => {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/worker.ts"], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: t.url,
        AFK_OPS_PORT: String(port),
        AFK_WORKERS: "1",
        AFK_DEMO_LATENCY_MS: "1500",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    const probe = async (p: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${p}`);
      return { status: res.status, body: (await res.json()) as { ready?: boolean; draining?: boolean } };
    };
    // A web-only instance next to it queues a run that takes two 1.5 s model calls.
    const web = testContext(t.db, { queue: { url: t.url, concurrency: 0 } });
    try {
      let up = { status: 0 } as { status: number };
      for (let i = 0; i < 240 && up.status !== 200; i++) {
        up = await probe("/readyz").catch(() => ({ status: 0, body: {} }));
        if (up.status !== 200) await sleep(250);
      }
      expect(up.status, output).toBe(200);
      const { id } = await startRun(web, sub, { body: { agent: "order-status", input: { order_id: "ORD-12345" } } });
      for (let i = 0; i < 120; i++) {
        const row = await getRunRow(t.db, id);
        if (row?.state === "running" && row.leaseOwner && row.leaseOwner !== "queued") break;
        await sleep(100);
      }
      expect((await getRunRow(t.db, id))?.leaseOwner).not.toBe("queued");

      child.kill("SIGTERM");
      await sleep(200);
      expect(await probe("/readyz")).toMatchObject({ status: 503, body: { ready: false, draining: true } });
      expect((await probe("/livez")).status).toBe(200);
      // It drains: the run ends here, then the process exits cleanly.
      expect(await exited).toBe(0);
      expect((await getRunRow(t.db, id))?.state).toBe("completed");
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await web.queue?.stop(2000);
    }
  }, 120_000);
});

describe("draining (this process)", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase("sqlite");
  });
  afterAll(async () => t?.drop());

  it("from the signal on, not ready; still live", async () => {
    const ctx = testContext(t.db);
    expect((await ready(ctx, "sqlite")).status).toBe(200);
    startDraining();
    expect(await ready(ctx, "sqlite")).toMatchObject({ status: 503, body: { ready: false, draining: true, database: { ok: true } } });
    expect(live()).toBe(200);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
