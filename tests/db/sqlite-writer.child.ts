// A second process for tests/db/adapters.test.ts: opens the SQLite file through lib/db as the app does,
// says "ready", and on "go" runs one read-then-write transaction (the shape that deadlocks on a deferred
// BEGIN), then prints what it read and exits.
import { createDb } from "../../lib/db/client.ts";

const [url, id] = process.argv.slice(2);
const db = createDb(url);
await db.$connect();
process.stdout.write("ready\n");
await new Promise<void>((r) => process.stdin.once("data", () => r()));
try {
  const seen = await db.$transaction(async (tx) => {
    const n = await tx.run.count();
    await new Promise((r) => setTimeout(r, 300));
    await tx.run.create({ data: { id, threadId: id, agentName: "a", state: "pending", input: "{}" } });
    return n;
  });
  process.stdout.write(`${JSON.stringify({ seen })}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ error: String(e) })}\n`);
}
await db.$disconnect();
