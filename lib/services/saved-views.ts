// Saved views: a reviewer names the filters of the inbox or the runs list ("finance queue": approvals
// routed to finance) and the navigation lists each with what it matches now. Stored per user as JSON with
// a schema version; a stored view whose filters no longer validate is skipped, never trusted.
import "server-only";
import { z } from "zod";
import type { Actor } from "../auth/actor.ts";
import { ConflictError, NotFoundError, ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import type { SavedViewDto } from "../dto.ts";
import { countRunRows } from "../db/runs.ts";
import { MAX_VIEWS, countSavedViews, createSavedView, deleteSavedView, savedViewsOf } from "../db/saved-views.ts";
import { parseOr400 } from "../validation.ts";
import { SEES_RUNS, allows, authorize } from "./access.ts";
import { inboxPage } from "./inbox.ts";
import { newSavedViewSchema, viewFilterSchemas } from "./schemas.ts";

type Scope = keyof typeof viewFilterSchemas;
type Ctx = Pick<AppContext, "db"> & Partial<Pick<AppContext, "agents">>;

const FILTERS_VERSION = 1;
const storedFiltersSchema = z.object({ v: z.literal(FILTERS_VERSION), filters: z.record(z.string(), z.string()) });

/** A runs view is counted up to this many runs. */
const RUNS_CAP = 1000;

const maySee = (who: Actor, scope: Scope) => allows(who, scope === "approvals" ? "approvals:decide" : SEES_RUNS);

const hrefOf = (scope: Scope, filters: Record<string, string>) => {
  const qs = new URLSearchParams(filters).toString();
  return `/${scope}${qs ? `?${qs}` : ""}`;
};

async function countOf(ctx: Ctx, who: Actor, scope: Scope, filters: Record<string, string>): Promise<{ count: number; more: boolean }> {
  if (scope === "approvals") {
    // The inbox's own first page (and its per-process copy): the count is what the view opens on.
    const { inbox } = await inboxPage(ctx, who, { query: filters });
    return { count: inbox?.approvals.length ?? 0, more: !!inbox?.nextCursor };
  }
  const f = viewFilterSchemas.runs.parse(filters);
  const onlySubmittedById = allows(who, "runs:read-all") ? undefined : who.id;
  const n = await countRunRows(ctx.db, { ...f, onlySubmittedById }, RUNS_CAP + 1);
  return { count: Math.min(n, RUNS_CAP), more: n > RUNS_CAP };
}

/** The caller's saved views with what each matches now (those of a page their role no longer opens left out). */
export async function listSavedViews(ctx: Ctx, actor: Actor | null): Promise<{ views: SavedViewDto[] }> {
  const who = authorize(actor);
  const rows = await savedViewsOf(ctx.db, who.id);
  const views: SavedViewDto[] = [];
  for (const r of rows) {
    const scope = r.scope as Scope;
    if (!(scope in viewFilterSchemas) || !maySee(who, scope)) continue;
    let stored: z.infer<typeof storedFiltersSchema>;
    try {
      stored = storedFiltersSchema.parse(JSON.parse(r.filters));
      viewFilterSchemas[scope].parse(stored.filters);
    } catch {
      continue;
    }
    views.push({
      id: r.id,
      name: r.name,
      scope,
      filters: stored.filters,
      href: hrefOf(scope, stored.filters),
      ...(await countOf(ctx, who, scope, stored.filters)),
    });
  }
  return { views };
}

export async function saveView(ctx: Ctx, actor: Actor | null, { body }: { body: unknown }): Promise<SavedViewDto> {
  const who = authorize(actor);
  const v = parseOr400(newSavedViewSchema, body);
  if (!maySee(who, v.scope)) throw new ValidationError("scope", `Your role does not open the ${v.scope} page`);
  // Empty values are no filter, as in the pages' URLs.
  const filters = Object.fromEntries(Object.entries(v.filters).filter(([, x]) => x !== ""));
  const r = viewFilterSchemas[v.scope].safeParse(filters);
  if (!r.success) {
    const issue = r.error.issues[0];
    const key = issue.path.length ? issue.path.join(".") : String((issue as { keys?: string[] }).keys?.[0] ?? "");
    throw new ValidationError(`filters.${key}`, issue.message);
  }
  if ((await countSavedViews(ctx.db, who.id)) >= MAX_VIEWS) throw new ConflictError(`You have ${MAX_VIEWS} saved views: delete one first`);
  const row = await createSavedView(ctx.db, {
    userId: who.id,
    name: v.name,
    scope: v.scope,
    filters: JSON.stringify({ v: FILTERS_VERSION, filters }),
  });
  if (!row) throw new ConflictError(`You already have a view named "${v.name}"`);
  return {
    id: row.id,
    name: row.name,
    scope: v.scope,
    filters,
    href: hrefOf(v.scope, filters),
    ...(await countOf(ctx, who, v.scope, filters)),
  };
}

export async function removeView(ctx: Ctx, actor: Actor | null, { viewId }: { viewId: string }): Promise<{ id: string; deleted: true }> {
  const who = authorize(actor);
  if (!(await deleteSavedView(ctx.db, who.id, viewId))) throw new NotFoundError("No saved view of yours has that id");
  return { id: viewId, deleted: true };
}
