"use client";
import { When } from "@/components/when";
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TOKEN_ROLES } from "@/lib/auth/roles";
import { api, fromAction } from "@/components/api";
import { createTokenAction, revokeTokenAction } from "./actions";
import { CardRow, CardTable, LabelledCell, LEAD } from "@/components/card-table";
import { Empty } from "@/components/ui";
import type { TokenView } from "@/lib/dto";

type Token = TokenView;
type UserOption = { id: string; email: string; role: string };

export function TokensClient({ initial, users }: { initial: Token[]; users: UserOption[] }) {
  const [userId, setUserId] = useState("");
  const [role, setRole] = useState("submitter");
  const emailOf = (id: string | null) => users.find((u) => u.id === id)?.email ?? (id ? "(unknown user)" : "service token");
  const qc = useQueryClient();
  const { data } = useQuery({
    queryKey: ["tokens"],
    queryFn: async () => (await api<{ tokens: Token[] }>("/api/admin/tokens")).tokens,
    initialData: initial,
  });
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const create = useMutation({
    mutationFn: (body: { name: string; role: string; userId?: string }) => fromAction(createTokenAction(body)),
    onSuccess: (t) => {
      setCreated(t.token);
      setError(null);
      void qc.invalidateQueries({ queryKey: ["tokens"] });
    },
    onError: (e: Error & { field?: string }) => setError({ field: e.field, message: e.message }),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => fromAction(revokeTokenAction(id)),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["tokens"] }),
  });
  return (
    <>
      <form
        method="post"
        className="card flex flex-wrap items-end gap-3"
        aria-label="Create API token"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          create.mutate({ name: String(f.get("name") ?? ""), role, ...(userId ? { userId } : {}) });
        }}
      >
        <div>
          <label className="label" htmlFor="token-name">
            Name
          </label>
          <input id="token-name" name="name" className="input mt-1" aria-invalid={error?.field === "name"} />
        </div>
        <div>
          <label className="label" htmlFor="token-role">
            Role
          </label>
          <select
            id="token-role"
            name="role"
            className="input mt-1"
            value={role}
            disabled={!!userId}
            onChange={(e) => setRole(e.target.value)}
          >
            {TOKEN_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label className="label" htmlFor="token-user">
            Acts as
          </label>
          <select
            id="token-user"
            className="input mt-1"
            value={userId}
            onChange={(e) => {
              setUserId(e.target.value);
              const u = users.find((x) => x.id === e.target.value);
              if (u) setRole(u.role);
            }}
          >
            <option value="">a service identity of its own</option>
            {users.map((u) => (
              <option key={u.id} value={u.id}>
                {u.email} ({u.role})
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="btn-primary" disabled={create.isPending}>
          Create token
        </button>
        {error && (
          <p role="alert" className="text-sm text-rose-700 dark:text-rose-400">
            {error.message}
          </p>
        )}
      </form>
      {created && (
        <div role="status" className="card border-emerald-400">
          <p className="text-sm font-semibold">Copy this token now; it will not be shown again.</p>
          <code data-testid="new-token" className="mt-1 block break-all font-mono text-sm">
            {created}
          </code>
        </div>
      )}
      {data.length === 0 ? (
        <Empty>No API tokens yet.</Empty>
      ) : (
        <CardTable
          label="API tokens"
          head={
            <>
              <th>Name</th>
              <th>Role</th>
              <th>Acts as</th>
              <th>Token</th>
              <th>Created</th>
              <th>Last used</th>
              <th>Status</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </>
          }
        >
          {data.map((t) => (
            <CardRow key={t.id} lead data-testid={`token-${t.name}`}>
              <td className={`${LEAD[0]} max-sm:break-all max-sm:font-semibold`}>{t.name}</td>
              <LabelledCell label="Role">{t.role}</LabelledCell>
              <LabelledCell label="Acts as" className="max-sm:break-all">
                {emailOf(t.userId)}
              </LabelledCell>
              <LabelledCell label="Token" className="font-mono">
                {t.prefix}…
              </LabelledCell>
              <LabelledCell label="Created">
                <When at={t.createdAt} />
              </LabelledCell>
              <LabelledCell label="Last used">
                <When at={t.lastUsedAt} />
              </LabelledCell>
              <td className={`${LEAD[1]} max-sm:text-xs`}>
                {t.revokedAt ? (
                  <span className="text-rose-700 dark:text-rose-400">revoked</span>
                ) : (
                  <span className="text-emerald-700 dark:text-emerald-400">active</span>
                )}
              </td>
              <td className={`${LEAD[2]} max-sm:ml-auto max-sm:empty:hidden`}>
                {!t.revokedAt && (
                  <button
                    type="button"
                    className="btn-secondary max-sm:min-h-10"
                    onClick={() => revoke.mutate(t.id)}
                    aria-label={`Revoke ${t.name}`}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </CardRow>
          ))}
        </CardTable>
      )}
    </>
  );
}
