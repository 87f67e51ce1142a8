import { db } from "@/lib/db/client";
import { pageActor } from "@/lib/auth/server";
import { listTokens } from "@/lib/tokens/service";
import { listUsers } from "@/lib/users/service";
import { TokensClient } from "./tokens-client";

export const dynamic = "force-dynamic";

export default async function TokensPage() {
  const actor = await pageActor("users:manage");
  const tokens = await listTokens(db(), actor);
  const users = (await listUsers(db(), actor)).filter((u) => !u.disabled).map((u) => ({ id: u.id, email: u.email, role: u.role }));
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
