"use client";
// The inbox's search: text found in a request's tool, agent or arguments (an order id, a customer's email)
// or its run id, and the group it is routed to. Kept in the URL (/approvals?q=…&group=…), so a search is a
// link, a saved view opens it, and the inbox reads it as its `search`. Applies as it is typed.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { FilterInput } from "@/components/filter-fields";
import { SaveView } from "@/components/saved-views";

export function ApprovalSearch({ initial, groups }: { initial: { q: string; group: string }; groups: string[] }) {
  const router = useRouter();
  const [q, setQ] = useState(initial.q);
  const [group, setGroup] = useState(initial.group);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const t = setTimeout(() => {
      const qs = new URLSearchParams({ ...(q.trim() ? { q: q.trim() } : {}), ...(group ? { group } : {}) }).toString();
      router.replace(`/approvals${qs ? `?${qs}` : ""}`, { scroll: false });
    }, 250);
    return () => clearTimeout(t);
  }, [q, group, router]);
  return (
    <form
      method="get"
      aria-label="Search approvals"
      className="flex flex-wrap items-end gap-3 max-sm:[&>div]:flex-1"
      onSubmit={(e) => e.preventDefault()}
    >
      <FilterInput
        id="s-q"
        name="q"
        type="search"
        label="Search"
        width="w-64"
        placeholder="order id, customer, run id"
        value={q}
        onChange={(e) => setQ(e.target.value)}
      />
      <FilterInput
        id="s-group"
        name="group"
        label="Routed to"
        width="w-36"
        list="s-groups"
        placeholder="any group"
        value={group}
        onChange={(e) => setGroup(e.target.value.trim().toLowerCase())}
      />
      <datalist id="s-groups">
        {groups.map((g) => (
          <option key={g} value={g} />
        ))}
      </datalist>
      <SaveView scope="approvals" filters={{ q: initial.q, group: initial.group }} />
    </form>
  );
}
