"use client";
import { useState, useTransition } from "react";
import { ROLES } from "@/lib/auth/roles";
import { errorText } from "@/lib/dto-shared";
import type { UserDto } from "@/lib/dto";
import { CardRow, LEAD, PhoneLabel } from "@/components/card-table";
import { createUserAction, updateUserAction } from "./actions";

type U = Pick<
  UserDto,
  "id" | "email" | "name" | "role" | "disabled" | "groups" | "disabledReason" | "disabledAt" | "linked" | "hasPassword" | "passwordKept"
>;

// Why a disabled user is disabled, when the IdP did it.
const BY_IDP = { idp: "removed at the IdP", scim: "deprovisioned by the IdP (SCIM)", "scim-deleted": "deleted at the IdP (SCIM)" } as const;
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : "");

// "finance, legal ops" → ["finance", "legal", "ops"]; the server validates each name.
const groupList = (text: FormDataEntryValue | string | null) =>
  String(text ?? "")
    .split(/[\s,]+/)
    .filter(Boolean);

export function UserRow({ user, self }: { user: U; self: boolean }) {
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const update = (patch: { role?: string; disabled?: boolean; groups?: string[]; passwordKept?: boolean }) =>
    start(async () => {
      const r = await updateUserAction(user.id, patch);
      setError(r.ok ? null : errorText(r));
    });
  return (
    <CardRow data-testid={`user-${user.email}`}>
      <td className={`${LEAD[0]} max-sm:break-all max-sm:font-semibold`}>{user.email}</td>
      <td className={`${LEAD[2]} max-sm:basis-full max-sm:text-xs max-sm:text-slate-600 max-sm:dark:text-slate-400`}>{user.name}</td>
      <td className="max-sm:flex max-sm:items-center max-sm:gap-2">
        <PhoneLabel className="w-14 shrink-0">Role</PhoneLabel>
        <label className="sr-only" htmlFor={`role-${user.id}`}>
          Role of {user.email}
        </label>
        <select
          id={`role-${user.id}`}
          className="input w-36 max-sm:h-10"
          value={user.role}
          disabled={pending || self}
          onChange={(e) => update({ role: e.target.value })}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </td>
      <td className="max-sm:order-1 max-sm:basis-full">
        <form
          method="post"
          className="flex gap-1 max-sm:items-center max-sm:gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            update({ groups: groupList(new FormData(e.currentTarget).get("groups")) });
          }}
        >
          <PhoneLabel className="w-14 shrink-0">Groups</PhoneLabel>
          <label className="sr-only" htmlFor={`groups-${user.id}`}>
            Groups of {user.email}
          </label>
          <input
            id={`groups-${user.id}`}
            name="groups"
            className="input w-40 max-sm:h-10 max-sm:w-auto max-sm:min-w-0 max-sm:flex-1"
            defaultValue={user.groups.join(", ")}
            key={user.groups.join(",")}
            placeholder="no group"
            disabled={pending}
          />
          <button type="submit" className="btn-secondary max-sm:min-h-10" disabled={pending}>
            Save
          </button>
        </form>
      </td>
      <td className={`${LEAD[1]} max-sm:ml-auto max-sm:text-xs`}>
        {user.disabled ? (
          <span className="text-rose-700 dark:text-rose-400" title={user.disabledAt ?? undefined}>
            {user.disabledReason ? `${BY_IDP[user.disabledReason]} on ${day(user.disabledAt)}` : "disabled"}
          </span>
        ) : (
          <span className="text-emerald-700 dark:text-emerald-400">active</span>
        )}
      </td>
      <td className="text-right max-sm:ml-auto max-sm:empty:hidden">
        {!self && (
          <button
            type="button"
            className="btn-secondary max-sm:min-h-10"
            disabled={pending}
            onClick={() => update({ disabled: !user.disabled })}
          >
            {user.disabled ? "Enable" : "Disable"}
          </button>
        )}
        {user.linked && user.hasPassword && (
          <label className="mt-1 flex items-center justify-end gap-1 text-xs">
            <input
              type="checkbox"
              checked={user.passwordKept}
              disabled={pending}
              onChange={(e) => update({ passwordKept: e.target.checked })}
            />
            Keep local password
          </label>
        )}
        {error && (
          <p role="status" className="text-xs text-rose-700 dark:text-rose-400">
            {error}
          </p>
        )}
      </td>
    </CardRow>
  );
}

export function NewUserForm() {
  const [pending, start] = useTransition();
  const [error, setError] = useState<{ field?: string; error: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);

  function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    const f = new FormData(formEl);
    const input = {
      email: f.get("email"),
      name: f.get("name"),
      role: f.get("role"),
      password: f.get("password"),
      groups: groupList(f.get("groups")),
    };
    start(async () => {
      const r = await createUserAction(input);
      if (r.ok) {
        setError(null);
        setDone(`Added ${r.data.email}`);
        formEl.reset();
      } else {
        setDone(null);
        setError({ field: r.field, error: errorText(r) });
      }
    });
  }

  const fieldError = (name: string) =>
    error?.field === name ? (
      <p id={`${name}-error`} className="mt-1 text-xs text-rose-700 dark:text-rose-400">
        {error.error}
      </p>
    ) : null;

  return (
    <form method="post" onSubmit={onSubmit} className="card grid max-w-xl grid-cols-2 gap-4" aria-label="Add user" noValidate>
      <h2 className="col-span-2 font-semibold">Add a user</h2>
      <div>
        <label className="label" htmlFor="new-email">
          Email
        </label>
        <input id="new-email" name="email" type="email" className="input mt-1" aria-invalid={error?.field === "email"} />
        {fieldError("email")}
      </div>
      <div>
        <label className="label" htmlFor="new-name">
          Name
        </label>
        <input id="new-name" name="name" className="input mt-1" aria-invalid={error?.field === "name"} />
        {fieldError("name")}
      </div>
      <div>
        <label className="label" htmlFor="new-role">
          Role
        </label>
        <select id="new-role" name="role" className="input mt-1" defaultValue="submitter">
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label className="label" htmlFor="new-password">
          Initial password
        </label>
        <input id="new-password" name="password" type="password" className="input mt-1" aria-invalid={error?.field === "password"} />
        {fieldError("password")}
      </div>
      <div className="col-span-2">
        <label className="label" htmlFor="new-groups">
          Groups (who may decide routed approvals; comma-separated, optional)
        </label>
        <input
          id="new-groups"
          name="groups"
          className="input mt-1"
          placeholder="e.g. finance"
          aria-invalid={!!error?.field?.startsWith("groups")}
        />
        {error?.field?.startsWith("groups") && <p className="mt-1 text-xs text-rose-700 dark:text-rose-400">{error.error}</p>}
      </div>
      <div className="col-span-2 flex items-center gap-3">
        <button type="submit" className="btn-primary" disabled={pending}>
          Add user
        </button>
        {done && (
          <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
            {done}
          </p>
        )}
        {error && !["email", "name", "password"].includes(error.field ?? "") && !error.field?.startsWith("groups") && (
          <p role="status" className="text-sm text-rose-700 dark:text-rose-400">
            {error.error}
          </p>
        )}
      </div>
    </form>
  );
}
