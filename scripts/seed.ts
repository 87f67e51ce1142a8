// Seeds one demo user per role on first start; existing users are never touched.
import { createDb } from "../lib/db/client.ts";
import { env } from "../lib/env.ts";
import { hashPassword } from "../lib/auth/password.ts";
import { ROLES } from "../lib/auth/roles.ts";

const db = createDb();
const password = env().AFK_DEMO_PASSWORD;
let created = 0;
for (const role of ROLES) {
  const email = `${role}@example.com`;
  if (await db.user.findUnique({ where: { email } })) continue;
  await db.user.create({
    data: { email, name: `Demo ${role}`, role, passwordHash: await hashPassword(password) },
  });
  created++;
}
console.log(created ? `seed: created ${created} demo users (password: AFK_DEMO_PASSWORD)` : "seed: demo users present");
await db.$disconnect();
