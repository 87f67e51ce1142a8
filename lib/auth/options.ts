import type { NextAuthOptions } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { db } from "../db/client.ts";
import { endSessions, userByEmail } from "../db/accounts.ts";
import { env } from "../env.ts";
import { verifyPassword } from "./password.ts";
import { assertNotLockedOut, clearAccountFailures, clientAddress, recordFailure } from "./lockout.ts";
import { z } from "zod";

const credentialsSchema = z.object({ email: z.string().trim().toLowerCase().max(200), password: z.string().max(200) });

export const authOptions: NextAuthOptions = {
  secret: env().NEXTAUTH_SECRET,
  session: { strategy: "jwt", maxAge: 8 * 60 * 60 },
  pages: { signIn: "/login" },
  providers: [
    Credentials({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(raw, req) {
        const c = credentialsSchema.safeParse(raw);
        if (!c.success) return null;
        const address = clientAddress(req?.headers as Record<string, string | undefined> | undefined);
        // A locked-out account is refused before the password is even checked (next-auth shows the message).
        await assertNotLockedOut(db(), c.data.email, address);
        const user = await userByEmail(db(), c.data.email);
        // Compare even for unknown users so that timing does not reveal which emails exist.
        const ok = await verifyPassword(
          c.data.password,
          user?.passwordHash ?? "$2b$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinvali",
        );
        if (!user || !ok || user.disabled) {
          await recordFailure(db(), c.data.email, address);
          return null;
        }
        await clearAccountFailures(db(), c.data.email);
        return { id: user.id, email: user.email, name: user.name, role: user.role, sessionVersion: user.sessionVersion };
      },
    }),
  ],
  events: {
    // Signing out ends the session everywhere: a copy of the old cookie no longer works.
    async signOut({ token }) {
      if (token?.sub) await endSessions(db(), token.sub);
    },
  },
  callbacks: {
    jwt({ token, user }) {
      if (user) {
        const u = user as typeof user & { role: string; sessionVersion: number };
        token.role = u.role;
        token.sessionVersion = u.sessionVersion;
      }
      return token;
    },
    session({ session, token }) {
      session.user = { ...session.user, id: token.sub, role: token.role, sessionVersion: token.sessionVersion } as typeof session.user;
      return session;
    },
  },
};
