// A reviewer's saved views (prisma/models.prisma SavedView): read and written for one user at a time.
import "server-only";
import type { Db } from "./client.ts";
import { isUniqueViolation } from "./errors.ts";

export type SavedViewRow = { id: string; name: string; scope: string; filters: string; createdAt: Date };

/** At most this many views per user (the navigation lists them all). */
export const MAX_VIEWS = 20;

export const savedViewsOf = (db: Db, userId: string): Promise<SavedViewRow[]> =>
  db.savedView.findMany({
    where: { userId },
    select: { id: true, name: true, scope: true, filters: true, createdAt: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_VIEWS,
  });

export const countSavedViews = (db: Db, userId: string) => db.savedView.count({ where: { userId } });

/** Creates a view; null when this user already has one of that name. */
export async function createSavedView(
  db: Db,
  v: { userId: string; name: string; scope: string; filters: string },
): Promise<SavedViewRow | null> {
  try {
    return await db.savedView.create({ data: v, select: { id: true, name: true, scope: true, filters: true, createdAt: true } });
  } catch (e) {
    if (isUniqueViolation(e)) return null;
    throw e;
  }
}

/** Deletes one of this user's views; false when they have none of that id. */
export async function deleteSavedView(db: Db, userId: string, id: string): Promise<boolean> {
  return (await db.savedView.deleteMany({ where: { id, userId } })).count === 1;
}
