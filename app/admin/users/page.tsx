import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { listUsers } from "@/lib/services/users";
import { NewUserForm, UserRow } from "./users-client";

export const dynamic = "force-dynamic";

export default async function UsersPage() {
  const actor = await pageActor("users:manage");
  const users = await listUsers(appContext(), actor);
  return (
    <div className="space-y-6">
      <h1 className="text-xl font-semibold">Users</h1>
      <div className="card overflow-x-auto p-0">
        <table className="table-afk" aria-label="Users">
          <thead>
            <tr>
              <th>Email</th>
              <th>Name</th>
              <th>Role</th>
              <th>Groups</th>
              <th>Status</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <UserRow
                key={u.id}
                user={{ id: u.id, email: u.email, name: u.name, role: u.role, disabled: u.disabled, groups: u.groups }}
                self={u.id === actor.id}
              />
            ))}
          </tbody>
        </table>
      </div>
      <NewUserForm />
    </div>
  );
}
