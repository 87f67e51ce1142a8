import type { Metadata } from "next";
import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { listTokens } from "@/lib/services/tokens";
import { listUsers } from "@/lib/services/users";
import { TokensClient } from "./tokens-client";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "API tokens" };

export default async function TokensPage() {
  const actor = await pageActor("users:manage");
  const tokens = await listTokens(appContext(), actor);
  const users = (await listUsers(appContext(), actor)).filter((u) => !u.disabled).map((u) => ({ id: u.id, email: u.email, role: u.role }));
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">API tokens</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        A token acts on the REST API (<code>Authorization: Bearer …</code>) as the user it was made for, with their role, or as a service
        identity of its own. It is shown once; only its hash is stored.
      </p>
      <TokensClient initial={tokens} users={users} />
    </div>
  );
}
