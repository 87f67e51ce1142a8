// The token look-up every API call makes: one statement, through the driver when there is one (Prisma's
// engine costs more than the query itself on this path; see lib/db/driver.ts).
import "server-only";
import { Prisma } from "../generated/sqlite/client.ts";
import { type Db, queryRows } from "../db/client.ts";
import { boolOf, dateOf } from "../db/driver.ts";

export type TokenWithUser = {
  id: string;
  name: string;
  role: string;
  userId: string | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  user: { id: string; email: string; name: string; role: string; disabled: boolean; groups: string } | null;
};

export async function tokenWithUser(db: Db, tokenHash: string): Promise<TokenWithUser | null> {
  const [r] = await queryRows(
    db,
    Prisma.sql`SELECT t."id", t."name", t."role", t."userId", t."revokedAt", t."lastUsedAt",
      u."id" AS "uId", u."email" AS "uEmail", u."name" AS "uName", u."role" AS "uRole", u."disabled" AS "uDisabled", u."groups" AS "uGroups"
    FROM "ApiToken" t LEFT JOIN "User" u ON u."id" = t."userId" WHERE t."tokenHash" = ${tokenHash}`,
  );
  if (!r) return null;
  return {
    id: r.id as string,
    name: r.name as string,
    role: r.role as string,
    userId: (r.userId as string | null) ?? null,
    revokedAt: dateOf(r.revokedAt),
    lastUsedAt: dateOf(r.lastUsedAt),
    user: r.uId
      ? {
          id: r.uId as string,
          email: r.uEmail as string,
          name: r.uName as string,
          role: r.uRole as string,
          disabled: boolOf(r.uDisabled),
          groups: r.uGroups as string,
        }
      : null,
  };
}

export const touchToken = (db: Db, id: string) => db.apiToken.update({ where: { id }, data: { lastUsedAt: new Date() } });
