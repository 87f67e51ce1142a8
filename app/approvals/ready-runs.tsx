"use client";
// The inbox's section of runs ready to resume: paused with every request decided, of agents that wait for
// someone to press Resume (`autoResume: false`); the others resume by themselves when their step's last
// decision lands. Under the "inbox" query key, so the inbox's live refetch (a decision anywhere) refreshes
// it too; the list's link shows them all.
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { api } from "@/components/api";
import { READY_TO_RESUME, plural } from "@/lib/format";

/** What the section shows of a run. */
export type ReadyRun = { id: string; agentName: string; submittedByEmail: string | null };

// shown: how many the section lists (the page read as many); "all" links to the runs list's filter.
export function ReadyRuns({ initial, shown }: { initial: { runs: ReadyRun[]; more: boolean }; shown: number }) {
  const { data } = useQuery({
    queryKey: ["inbox", "ready-runs"],
    queryFn: async () => {
      const page = await api<{ runs: ReadyRun[]; nextCursor: string | null }>(`/api/runs?state=ready&take=${shown}`, { revalidate: true });
      return {
        runs: page.runs.map(({ id, agentName, submittedByEmail }) => ({ id, agentName, submittedByEmail })),
        more: !!page.nextCursor,
      };
    },
    initialData: initial,
    refetchInterval: 15_000,
  });
  if (!data.runs.length) return null;
  return (
    <section className="card space-y-2" aria-labelledby="ready-runs" data-testid="ready-runs">
      <h2 id="ready-runs" className="text-sm font-semibold">
        {READY_TO_RESUME} · {data.more ? `${data.runs.length}+` : data.runs.length}
      </h2>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Every request of {data.runs.length === 1 ? "this run" : "these runs"} is decided;{" "}
        {data.runs.length === 1 ? "its agent waits" : "their agents wait"} for someone to press Resume.
      </p>
      <ul className="space-y-1 text-sm">
        {data.runs.map((r) => (
          <li key={r.id}>
            <Link prefetch={false} className="text-indigo-700 underline dark:text-indigo-300" href={`/runs/${encodeURIComponent(r.id)}`}>
              {r.agentName} <span className="font-mono text-xs">{r.id.slice(0, 8)}</span>
            </Link>
            {r.submittedByEmail && <span className="text-xs text-slate-600 dark:text-slate-400"> · by {r.submittedByEmail}</span>}
          </li>
        ))}
      </ul>
      {data.more && (
        <Link prefetch={false} className="text-sm underline" href="/runs?state=ready">
          All {plural(data.runs.length, "run")}+ ready to resume
        </Link>
      )}
    </section>
  );
}
