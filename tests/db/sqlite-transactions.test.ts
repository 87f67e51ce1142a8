// better-sqlite3 is synchronous and Prisma keeps an interactive transaction's connection open across
// awaits. lib/db/adapters.ts gates each file per process so that (1) a query made while a transaction is
// open neither runs inside it nor is rolled back with it, and (2) a second client of the same file in the
// same process waits for the transaction instead of busy-waiting the event loop into SQLITE_BUSY.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { createDb, type Db, driverOf } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/sqlite/client";

describe("SQLite transactions beside other queries", () => {
  let t: TestDb;
  let other: Db;
  beforeAll(async () => {
    t = await freshDatabase("sqlite");
    other = createDb(t.url);
  });
  afterAll(async () => {
    await other?.$disconnect();
    await t?.drop();
  });

  const row = (id: string) => ({ id, threadId: id, agentName: "a", state: "pending", input: "{}" });

  // A transaction that writes row id, stays open ms, then rolls back: resolves once it is open, with the
  // transaction's outcome to come (its error's message; wrapped, or awaiting this would wait for it).
  async function openRollingBack(id: string, ms: number): Promise<{ tx: Promise<string> }> {
    let inside!: () => void;
    const opened = new Promise<void>((r) => (inside = r));
    const tx = t.db
      .$transaction(async (x) => {
        await x.run.create({ data: row(id) });
        inside();
        await new Promise((r) => setTimeout(r, ms));
        throw new Error("roll back");
      })
      .catch((e: Error) => e.message);
    await opened;
    return { tx };
  }

  it("a write made while a transaction is open survives that transaction's rollback", async () => {
    const { tx } = await openRollingBack("in-tx", 200);
    // Same client and a second client of the same file, both while the transaction is open.
    await Promise.all([t.db.run.create({ data: row("beside-1") }), other.run.create({ data: row("beside-2") })]);
    expect(await tx).toBe("roll back");
    const ids = (await t.db.run.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((r) => r.id);
    expect(ids).toEqual(["beside-1", "beside-2"]);
  });

  it("a driver statement made while a transaction is open waits for it, and a failing one rejects", async () => {
    const { tx } = await openRollingBack("drv-in-tx", 100);
    const d = driverOf(t.db)!;
    const insert = (id: string) =>
      d.run(
        Prisma.sql`INSERT INTO "Run" ("id", "threadId", "agentName", "state", "input", "updatedAt") VALUES (${id}, ${id}, 'a', 'pending', '{}', ${new Date()})`,
      );
    const beside = insert("drv-beside");
    expect(await tx).toBe("roll back");
    expect(await beside).toBe(1);
    expect(await d.all(Prisma.sql`SELECT "id" FROM "Run" WHERE "id" LIKE 'drv-%'`)).toEqual([{ id: "drv-beside" }]);
    // A statement the database refuses (a duplicate key, then bad SQL) is a rejected promise, not a throw.
    const dup = insert("drv-beside");
    expect(dup).toBeInstanceOf(Promise);
    await expect(dup).rejects.toThrow(/UNIQUE/);
    const bad = d.all(Prisma.sql`SELECT nope FROM nowhere`);
    await expect(bad).rejects.toThrow(/no such table/);
  });

  it("transactions of two clients of one file take turns", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? other : t.db).$transaction(
          async (x) => {
            const n = await x.run.count();
            await new Promise((r) => setTimeout(r, 5));
            await x.run.create({ data: row(`turn-${String(i).padStart(2, "0")}-${n}`) });
            return n;
          },
          // The last of 20 waits for 19 turns: on a loaded machine that passed Prisma's default 2 s to start
          // (the app's own transactions wait up to 20 s, lib/execution/dispatch.ts).
          { maxWait: 20_000 },
        ),
      ),
    );
    // Each saw every row committed before it: the counts are all different.
    expect(new Set(results).size).toBe(20);
  });
});
