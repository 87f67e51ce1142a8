// lib/db/adapters.ts wraps @prisma/adapter-better-sqlite3 through its public interface and reaches into
// it once (the better-sqlite3 handle). This fails loudly when an upgrade changes what that relies on: the
// versions it was written for, the connection's methods, the handle, Prisma sending COMMIT and ROLLBACK
// itself, and a transaction taking SQLite's write lock at BEGIN (two processes' read-then-write
// transactions both commit, in turn, instead of one failing with SQLITE_BUSY).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleOf, SQLITE_CONNECTION_METHODS, sqliteAdapter, WRITTEN_FOR } from "@/lib/db/adapters";
import { freshDatabase, type TestDb } from "../helpers/databases";

const root = path.resolve(import.meta.dirname, "../..");
const installed = (pkg: string) =>
  (JSON.parse(readFileSync(path.join(root, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;

// Every method on a connection object's prototype chain, as the adapter defines them.
function methodsOf(o: object): string[] {
  const names = new Set<string>();
  for (let p = Object.getPrototypeOf(o); p && p !== Object.prototype; p = Object.getPrototypeOf(p))
    for (const n of Object.getOwnPropertyNames(p))
      if (n !== "constructor" && typeof (o as Record<string, unknown>)[n] === "function") names.add(n);
  return [...names].sort();
}

const row = (id: string) => ({ id, threadId: id, agentName: "a", state: "pending", input: "{}" });

describe("the SQLite adapter as lib/db/adapters.ts uses it", () => {
  let t: TestDb;
  let file: string;
  beforeAll(async () => {
    t = await freshDatabase("sqlite");
    file = t.url.replace(/^file:/, "");
  });
  afterAll(() => t?.drop());

  it("is the version the wrapper was written for (package.json pins it exactly)", () => {
    const pinned = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    for (const [pkg, version] of Object.entries(WRITTEN_FOR)) {
      expect(installed(pkg), `${pkg}: re-check lib/db/adapters.ts against the new version, then update WRITTEN_FOR`).toBe(version);
      expect(pinned.dependencies[pkg], pkg).toBe(version);
    }
  });

  it("has the connection methods the wrapper passes on, no more, and its better-sqlite3 handle in .client", async () => {
    const factory = new PrismaBetterSQLite3({ url: t.url });
    expect(factory.provider).toBe("sqlite");
    const conn = await factory.connect();
    try {
      // Its own helpers besides the interface's methods; a new method (say getConnectionInfo) fails here.
      expect(methodsOf(conn)).toEqual([...SQLITE_CONNECTION_METHODS, "executeIO", "onError", "performIO"].sort());
      const h = handleOf(conn);
      expect(h).toBeInstanceOf(Database);
      // The handle is the connection the adapter's statements run on: a temporary table is per connection.
      await conn.executeRaw({ sql: "CREATE TEMP TABLE probe (x)", args: [], argTypes: [] });
      expect(h.prepare("SELECT COUNT(*) AS n FROM temp.probe").get()).toEqual({ n: 0n });
      expect(() => handleOf({ provider: "sqlite", adapterName: "x" } as unknown as typeof conn)).toThrow(/no better-sqlite3 handle/);
    } finally {
      await conn.dispose();
    }
  });

  it("commits and rolls back through the statements Prisma sends, leaving no transaction open", async () => {
    expect(sqliteAdapter(t.url, { timeout: 1000, pragmas: [], gate: { open: null } }).handle()).toBeNull(); // before a connect
    const probe = new Database(file, { timeout: 0 });
    // The write lock is free again: COMMIT or ROLLBACK reached the database.
    const unlocked = () => {
      probe.prepare("BEGIN IMMEDIATE").run();
      probe.prepare("ROLLBACK").run();
    };
    try {
      await t.db.$transaction(async (tx) => {
        await tx.run.create({ data: row("kept") });
      });
      unlocked();
      await expect(
        t.db.$transaction(async (tx) => {
          await tx.run.create({ data: row("dropped") });
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      unlocked();
      expect((await t.db.run.findMany({ select: { id: true } })).map((r) => r.id)).toEqual(["kept"]);
      await t.db.run.deleteMany();
    } finally {
      probe.close();
    }
  });

  it("takes the write lock at BEGIN, before the transaction's first statement", async () => {
    const probe = new Database(file, { timeout: 0 });
    try {
      await t.db.$transaction(async () => {
        expect(() => probe.prepare("BEGIN IMMEDIATE").run()).toThrow(/database is locked|SQLITE_BUSY/);
      });
      probe.prepare("BEGIN IMMEDIATE").run();
      probe.prepare("ROLLBACK").run();
    } finally {
      probe.close();
    }
  });

  it("two processes' read-then-write transactions both commit, one after the other", async () => {
    const child = spawn(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", path.join(import.meta.dirname, "sqlite-writer.child.ts"), t.url, "child"],
      {
        cwd: root,
        stdio: ["pipe", "pipe", "inherit"],
      },
    );
    let out = "";
    const lines = (n: number) =>
      new Promise<string[]>((resolve, reject) => {
        const check = () => (out.split("\n").filter(Boolean).length >= n ? resolve(out.split("\n").filter(Boolean)) : undefined);
        child.stdout.on("data", (d) => {
          out += d;
          check();
        });
        child.on("exit", (code) => reject(new Error(`child exited (${code}): ${out}`)));
        check();
      });
    await lines(1);
    child.stdin.write("go\n");
    const here = await t.db.$transaction(async (tx) => {
      const n = await tx.run.count();
      await new Promise((r) => setTimeout(r, 300));
      await tx.run.create({ data: row("parent") });
      return n;
    });
    const [, result] = await lines(2);
    const there = JSON.parse(result) as { seen?: number; error?: string };
    expect(there.error).toBeUndefined();
    // Each read the other's row or none: they took turns, neither failed on a stale snapshot.
    expect([here, there.seen].sort()).toEqual([0, 1]);
    expect(await t.db.run.count()).toBe(2);
  }, 30_000);
});
