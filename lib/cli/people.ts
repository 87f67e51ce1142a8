// Users and API tokens from the CLI, on DATABASE_URL (the console's Users and API tokens pages, same
// services, same audit). With no admin in the database yet, `users create --role admin` needs no --as: it
// makes the first admin (lib/services/first-admin.ts); everything else acts as a named admin.
import { type Actor, actorByEmail } from "../auth/actor.ts";
import { type AppContext, appContext } from "../context.ts";
import { userByEmail } from "../db/accounts.ts";
import { createFirstAdmin } from "../services/first-admin.ts";
import { createToken, listTokens, revokeToken } from "../services/tokens.ts";
import { createUser, listUsers } from "../services/users.ts";
import { UsageError } from "./backend.ts";
import { cliErrorOf, closeContext } from "./local.ts";

type NewUser = { email: string; name: string; role: string; password: string; groups?: string[] };
type NewToken = { name: string; role: string; user?: string };

async function withAdmin<T>(as: string | undefined, fn: (ctx: AppContext, actor: Actor | null) => Promise<T>) {
  const ctx = appContext();
  try {
    const actor = as ? await actorByEmail(ctx.db, as) : null;
    return await fn(ctx, actor);
  } catch (e) {
    throw cliErrorOf(e);
  } finally {
    await closeContext(ctx);
  }
}

/** A new user: as the named admin, or the first admin when --as is not given. */
export const createUserLocal = (as: string | undefined, body: NewUser) =>
  withAdmin(as, (ctx, actor) => (actor ? createUser(ctx, actor, { body }) : createFirstAdmin(ctx, { body })));

export const listUsersLocal = (as: string | undefined) => withAdmin(needAs(as), (ctx, actor) => listUsers(ctx, actor));

export const createTokenLocal = (as: string | undefined, t: NewToken) =>
  withAdmin(needAs(as), async (ctx, actor) => {
    const user = t.user ? await userByEmail(ctx.db, t.user.trim().toLowerCase()) : null;
    if (t.user && !user) throw new UsageError(`--user: no user ${t.user}`);
    return createToken(ctx, actor, { body: { name: t.name, role: t.role, ...(user ? { userId: user.id } : {}) } });
  });

export const listTokensLocal = (as: string | undefined) => withAdmin(needAs(as), (ctx, actor) => listTokens(ctx, actor));

export const revokeTokenLocal = (as: string | undefined, tokenId: string) =>
  withAdmin(needAs(as), (ctx, actor) => revokeToken(ctx, actor, { tokenId }));

function needAs(as: string | undefined): string {
  if (!as) throw new UsageError("say which admin acts: --as <email> or AFK_ACTOR");
  return as;
}
