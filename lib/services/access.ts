// Who may do what, in one place. Every service starts with `authorize` (401 without a caller, 403 without
// the permission) and reads a run through `visibleRun` (someone else's run is a 404 to a submitter); pages
// ask `allows` for what to show and get the same answer the service would give.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { ForbiddenError, NotFoundError, UnauthorizedError } from "../auth/errors.ts";
import { type Needed, allows } from "../auth/roles.ts";
import type { AppContext } from "../context.ts";
import { type Run, getRunRow } from "../db/runs.ts";

export type RunRow = Run;

// Pages ask here as services do; the rule itself is the access vocabulary's (lib/auth/roles.ts).
export { allows, type Needed } from "../auth/roles.ts";

/** The actor, if signed in and (when asked) holding the permission: else 401 or 403. */
export function authorize(actor: Actor | null, needed?: Needed): Actor {
  if (!actor) throw new UnauthorizedError();
  if (needed && !allows(actor, needed)) throw new ForbiddenError();
  return actor;
}

/** Everyone who may see runs at all: those who see every run, and submitters (who see their own). */
export const SEES_RUNS: Needed = ["runs:read-all", "runs:start"];

/** Whether the run list and the run page show this run to this actor. */
export const mayRead = (actor: Actor, run: { submittedById: string | null }) =>
  allows(actor, "runs:read-all") || run.submittedById === actor.id;

/** The run if the actor may see it: 401 without a caller, 403 for a role that sees no runs, 404 for a run that is not theirs to see. */
export async function visibleRun(ctx: Pick<AppContext, "db">, actor: Actor | null, runId: string): Promise<RunRow> {
  const who = authorize(actor, SEES_RUNS);
  const run = await getRunRow(ctx.db, runId);
  // Someone else's run is as invisible to a submitter as one that does not exist.
  if (!run || !mayRead(who, run)) throw new NotFoundError("No such run");
  return run;
}
