// The people, the refund and the waits the hand-off tests share.
import type { Actor } from "@/lib/auth/actor";
import { HttpError } from "@/lib/auth/errors";
import type { AppContext } from "@/lib/context";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import type { TestDb } from "./databases";

const person = (handle: string, role: Actor["role"], groups: string[] = []): Actor => ({
  id: `u-${handle}`,
  email: `${handle}@example.com`,
  name: handle[0].toUpperCase() + handle.slice(1),
  role,
  groups,
});
export const sub = person("sub", "submitter");
export const fin = person("fin", "reviewer", ["finance"]);
export const fin2 = person("fin2", "reviewer", ["finance"]);
export const ops = person("ops", "reviewer", ["ops"]);
export const boss = person("boss", "admin");
export const everyone = [sub, fin, fin2, ops, boss];

export const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => {
      if (!(e instanceof HttpError)) throw e;
      return { status: e.status, field: e.field, message: e.message, current: (e as { current?: unknown }).current };
    },
  );

/** Until the request's messages are planned (when given) and nothing is waiting to be sent. */
export async function settled(t: TestDb, approvalId?: string) {
  for (let i = 0; approvalId && i < 200 && !(await t.db.notification.count({ where: { approvalId } })); i++)
    await new Promise((r) => setTimeout(r, 50));
  for (let i = 0; i < 200 && (await t.db.notification.count({ where: { status: { in: ["pending", "sending"] } } })); i++)
    await new Promise((r) => setTimeout(r, 50));
}

/** A large refund of a run `sub` submitted, paused on its finance-routed issue_refund. */
export async function pausedRefund(ctx: AppContext, order: string) {
  const { id } = await startRun(ctx, sub, {
    body: { agent: "refund-desk", input: { order_id: order, amount_cents: 250_000, reason: "Lost" } },
  });
  await ctx.worker.idle();
  const view = await getRunView(ctx, boss, { runId: id });
  return { runId: id, refund: view.approvals.find((a) => a.tool_name === "issue_refund")! };
}
