// The process's one executor, on the configured database, with the pause webhook when one is configured.
import { db } from "../db/client.ts";
import { env } from "../env.ts";
import { RunExecutor } from "./executor.ts";

const g = globalThis as unknown as { afkExecutor?: RunExecutor };

export function executor(): RunExecutor {
  if (!g.afkExecutor) {
    const e = env();
    const webhook = e.AFK_WEBHOOK_URL && e.AFK_WEBHOOK_SECRET ? { url: e.AFK_WEBHOOK_URL, secret: e.AFK_WEBHOOK_SECRET, baseUrl: e.NEXTAUTH_URL ?? "http://localhost:3000" } : null;
    g.afkExecutor = new RunExecutor(db(), { webhook });
  }
  return g.afkExecutor;
}
