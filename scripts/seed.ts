// Seeds one demo user per role on first start (the reviewer in group finance, which large refunds are
// routed to); existing users are never touched.
import { createDb } from "../lib/db/client.ts";
import { env } from "../lib/env.ts";
import { hashPassword } from "../lib/auth/password.ts";
import { ROLES } from "../lib/auth/roles.ts";
import { createContext } from "../lib/context.ts";
import { startRun } from "../lib/services/start.ts";

const db = createDb();
const password = env().AFK_DEMO_PASSWORD;
let created = 0;
for (const role of ROLES) {
  const email = `${role}@example.com`;
  if (await db.user.findUnique({ where: { email } })) continue;
  await db.user.create({
    data: {
      email,
      name: `Demo ${role}`,
      role,
      groups: JSON.stringify(role === "reviewer" ? ["finance"] : []),
      passwordHash: await hashPassword(password),
    },
  });
  created++;
}
const told = process.env.AFK_DEMO_PASSWORD
  ? "the password in AFK_DEMO_PASSWORD"
  : `the default password ${password}; set AFK_DEMO_PASSWORD before the first start for another`;
console.log(created ? `seed: created ${created} demo users (<role>@example.com, ${told})` : "seed: demo users present");

// A fresh install shows real paused runs: the demo model drives the demo agents to their first approvals.
if (process.env.AFK_SEED_DEMO_RUNS !== "0" && (await db.run.count()) === 0) {
  const sub = await db.user.findUniqueOrThrow({ where: { email: "submitter@example.com" } });
  const actor = { id: sub.id, email: sub.email, name: sub.name, role: "submitter" as const };
  const ctx = createContext(db);
  await startRun(ctx, actor, {
    body: {
      agent: "refund-desk",
      input: { order_id: "ORD-1001", amount_cents: 12500, reason: "Arrived broken" },
    },
  });
  await startRun(ctx, actor, {
    body: { agent: "deploy-bot", input: { service: "checkout", version: "2.4.0", environment: "production" } },
  });
  await ctx.worker.idle();
  console.log("seed: started 2 demo runs (paused for approval)");
}
await db.$disconnect();
