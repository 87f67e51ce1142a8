import type { Metadata } from "next";
import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { CardTable } from "@/components/card-table";
import { listUsers } from "@/lib/services/users";
import { NewUserForm, UserRow } from "./users-client";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const actor = await pageActor("users:manage");
  const users = await listUsers(appContext(), actor);
  return (
    <div className="space-y-6">
      <h1 className="text-xl font-semibold">Users</h1>
      <CardTable
        label="Users"
        head={
          <>
            <th>Email</th>
            <th>Name</th>
            <th>Role</th>
            <th>Groups</th>
            <th>Status</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </>
        }
      >
        {users.map((u) => (
          <UserRow key={u.id} user={u} self={u.id === actor.id} />
        ))}
      </CardTable>
      <NewUserForm />
    </div>
  );
}
