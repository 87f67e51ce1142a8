"use client";
import Link from "next/link";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/components/api";
import { useLive } from "@/components/live";
import { Empty, ErrorBox } from "@/components/ui";
import { fmtDuration, fmtTime } from "@/lib/format";
import type { InboxDto } from "@/lib/dto";

type InboxData = InboxDto;

export function Inbox({ initial, agents }: { initial: InboxData; agents: string[] }) {
  const [agent, setAgent] = useState("");
  const [tool, setTool] = useState("");
  const qc = useQueryClient();
  // Pushed: a decision or a new pause anywhere refetches at once (a 304 when this filter did not change).
  const live = useLive({ inbox: true }, (e) => {
    if (e.type === "inbox") void qc.invalidateQueries({ queryKey: ["inbox"] });
  });
  const qs = new URLSearchParams({ ...(agent ? { agent } : {}), ...(tool ? { tool } : {}) }).toString();
  const { data, error, isFetching, dataUpdatedAt } = useQuery({
    queryKey: ["inbox", agent, tool],
    queryFn: () => api<InboxData>(`/api/approvals${qs ? `?${qs}` : ""}`, { revalidate: true }),
    initialData: agent || tool ? undefined : initial,
    initialDataUpdatedAt: initial.asOfMs,
    refetchInterval: live ? 15_000 : 3000,
  });
  const tools = [...new Set(initial.approvals.map((a) => a.tool))].sort();
  // The first render measures to the server's clock of its answer (the same in the server's HTML); later
  // ones to the last refresh, which a 304 also counts as (its body, and asOfMs, are the cached ones).
  const now = data ? Math.max(data.asOfMs, dataUpdatedAt) : initial.asOfMs;
  return (
    <>
      <form className="flex flex-wrap items-end gap-3" aria-label="Filter approvals" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label className="label" htmlFor="f-agent">
            Agent
          </label>
          <select id="f-agent" className="input mt-1" value={agent} onChange={(e) => setAgent(e.target.value)}>
            <option value="">All agents</option>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label className="label" htmlFor="f-tool">
            Tool
          </label>
          <input
            id="f-tool"
            list="tools"
            className="input mt-1"
            value={tool}
            onChange={(e) => setTool(e.target.value.trim())}
            placeholder="any tool"
          />
          <datalist id="tools">
            {tools.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </div>
        <span className="text-xs text-slate-500" aria-live="polite">
          {isFetching ? "refreshing…" : `${data?.approvals.length ?? 0} waiting`}
        </span>
      </form>
      {error && <ErrorBox title="Could not load approvals">{error.message}</ErrorBox>}
      {data && data.corrupt.length > 0 && (
        <div className="card border-rose-300" role="status" aria-label="Unreadable approvals">
          <h2 className="text-sm font-semibold text-rose-700">
            AgentCheckpointCorruptionError: {data.corrupt.length} approval record(s) could not be read
          </h2>
          <ul className="mt-1 space-y-1 text-xs">
            {data.corrupt.map((c) => (
              <li key={c.key} data-testid={`inbox-corrupt-${c.key}`}>
                <span className="font-mono">{c.key}</span>
                {c.runId && (
                  <>
                    {" "}
                    · run{" "}
                    <Link className="font-mono text-indigo-600 underline" href={`/runs/${encodeURIComponent(c.runId)}`}>
                      {c.runId.slice(0, 8)}
                    </Link>
                  </>
                )}{" "}
                · not decidable until repaired
              </li>
            ))}
          </ul>
        </div>
      )}
      {!data ? (
        <p className="text-sm text-slate-500">Loading…</p>
      ) : data.approvals.length === 0 ? (
        <Empty>No approvals are waiting.</Empty>
      ) : (
        <div className="card overflow-x-auto p-0">
          <table className="table-afk" aria-label="Pending approvals">
            <thead>
              <tr>
                <th>Agent</th>
                <th>Tool</th>
                <th>Arguments</th>
                <th>Run</th>
                <th>Requested by</th>
                <th>Waiting</th>
                <th>Deadline</th>
                <th>Approvals</th>
              </tr>
            </thead>
            <tbody>
              {data.approvals.map((a) => (
                <tr key={a.id} data-testid={`inbox-${a.id}`}>
                  <td>
                    {a.agent}
                    {a.subRunId ? <span className="block text-xs text-slate-500">in {a.rootAgent}</span> : null}
                  </td>
                  <td className="font-mono">
                    {a.kind === "question" && (
                      <span className="mr-1 rounded bg-sky-100 px-1.5 py-0.5 font-sans text-xs text-sky-900 dark:bg-sky-900 dark:text-sky-100">
                        Question
                      </span>
                    )}
                    {a.tool}
                  </td>
                  <td className="max-w-xs whitespace-pre-wrap break-words">{a.summary}</td>
                  <td>
                    <Link className="font-mono text-indigo-600 underline" href={`/runs/${encodeURIComponent(a.runId)}`}>
                      {a.runId.slice(0, 8)}
                    </Link>
                  </td>
                  <td>{a.requestedBy ?? "—"}</td>
                  <td title={fmtTime(a.requestedAtMs)}>{fmtDuration(now - a.requestedAtMs)}</td>
                  <td>{a.deadlineMs ? fmtTime(a.deadlineMs) : "none"}</td>
                  <td>
                    {a.quorum > 1 ? `${a.approvals} of ${a.quorum} approvals` : a.approvals ? "1 of 1" : "—"}
                    {a.decidedByMe ? <span className="block text-xs text-slate-500">you approved</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
