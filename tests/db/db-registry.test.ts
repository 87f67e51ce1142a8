// Next's server bundles hold several copies of lib/db/client.ts; the process's one client (db()) is created
// by whichever copy runs first. Every copy must still find that client's driver and provider: with
// per-copy registries the route handlers sent every hot statement through Prisma's engine and took a
// PostgreSQL client for SQLite (so fenced writes lost their FOR SHARE).
import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import * as first from "@/lib/db/client";
import { Prisma } from "@/lib/generated/sqlite/client";

// A second instance of the module, as a bundler's second chunk would hold (the query makes it another module).
const second = (await import(/* @vite-ignore */ `../../lib/db/client.ts?copy=${Date.now()}`)) as typeof first;

describe.each(providers)("the database client on %s, seen from another copy of its module", (provider) => {
  const dbs: TestDb[] = [];
  afterAll(async () => {
    for (const d of dbs) await d.drop();
  });

  it("is another module instance", () => {
    expect(second.createDb).not.toBe(first.createDb);
  });

  it("finds the driver and the provider of a client the first copy created", async () => {
    const t = await freshDatabase(provider);
    dbs.push(t);
    expect(first.driverOf(t.db)).not.toBeNull();
    expect(second.driverOf(t.db)?.provider).toBe(provider);
    expect(second.providerOf(t.db)).toBe(provider);
    const rows = await second.driverOf(t.db)!.all(Prisma.sql`SELECT 1 AS "one"`);
    expect(Number(rows[0].one)).toBe(1);
  });

  it("finds no driver for a transaction client or a proxy of the client", async () => {
    const t = dbs[0] ?? (await freshDatabase(provider));
    expect(second.driverOf(new Proxy(t.db, {}))).toBeNull();
    await t.db.$transaction(async (tx) => {
      expect(second.driverOf(tx as typeof t.db)).toBeNull();
    });
  });
});
