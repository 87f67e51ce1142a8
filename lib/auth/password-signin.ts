// A sign-in with email and password (next-auth's credentials provider calls this; lib/auth/options.ts).
import "server-only";
import { z } from "zod";
import type { Db } from "../db/client.ts";
import { userByEmail } from "../db/accounts.ts";
import { verifyPassword } from "./password.ts";
import { assertNotLockedOut, clearAccountFailures, failedSignIn, recordFailure } from "./lockout.ts";

const credentialsSchema = z.object({ email: z.string().trim().toLowerCase().max(200), password: z.string().max(200) });

/** The signed-in user, or null for a malformed form; a wrong password (or a refused account) throws the form's message. */
export async function passwordSignIn(db: Db, raw: unknown, address: string) {
  const c = credentialsSchema.safeParse(raw);
  if (!c.success) return null;
  // A locked-out account is refused before the password is even checked (next-auth shows the message).
  await assertNotLockedOut(db, c.data.email, address);
  const user = await userByEmail(db, c.data.email);
  // Compare even for unknown users (and users of the IdP, who have no password) so that timing does
  // not reveal which emails exist.
  const ok = await verifyPassword(c.data.password, user?.passwordHash || "$2b$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinvali");
  // A linked account signs in through the IdP: its local password works only while an admin keeps it on
  // (else removal at the IdP would leave it a way in). A suspended user's never does.
  const passwordOn = !!user?.passwordHash && (!user.ssoSubject || user.passwordKept);
  if (!user || !passwordOn || !ok || user.disabled) {
    await recordFailure(db, c.data.email, address);
    // next-auth hands the message to the sign-in form: the attempts left, or the lock this failure set.
    throw await failedSignIn(db, c.data.email, address);
  }
  await clearAccountFailures(db, c.data.email);
  return { id: user.id, email: user.email, name: user.name, role: user.role, sessionVersion: user.sessionVersion };
}
