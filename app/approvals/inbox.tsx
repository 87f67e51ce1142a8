"use client";
import Link from "next/link";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { api } from "@/components/api";
import { useLive } from "@/components/live";
import { FilterSelect } from "@/components/filter-fields";
import { Empty, ErrorBox } from "@/components/ui";
import { useHydrated } from "@/components/use-hydrated";
import type { InboxRowDto } from "@/lib/dto";
import { plural } from "@/lib/format";
import { approvalAnchor } from "@/lib/runner/ids";
import { type ManyResult, decideMany } from "./decide-many";
import { type DecideStep, DecideSelected } from "./decide-selected";
import { type InboxData, type PackedFirstScreen, routed, toolsOf, unpackFirstScreen } from "./first-screen";
import { InboxList } from "./inbox-list";
import { PreviewPane } from "./preview-pane";
import { INBOX_KEYS, useInboxKeys } from "./use-inbox-keys";

// packed: the page's first screen (first-screen.ts); agents and frameworks: the filters' choices (this
// console's agents and external runtimes', and those runtimes' frameworks).
// search: the page's search as a query string (approval-search.tsx), sent with every read of the list.
export function Inbox({
  initial: packed,
  agents,
  frameworks,
  search = "",
}: {
  initial: PackedFirstScreen;
  agents: string[];
  frameworks: string[];
  search?: string;
}) {
  const initial = useMemo(() => unpackFirstScreen(packed), [packed]);
  const [agent, setAgent] = useState("");
  const [framework, setFramework] = useState("");
  const [tool, setTool] = useState("");
  // Cursor pages: the cursors of the pages before this one, so "Previous" goes back without a reverse query.
  const [pages, setPages] = useState<string[]>([]);
  const page = pages.at(-1) ?? null;
  const qc = useQueryClient();
  // Pushed: a decision or a new pause anywhere refetches at once (a 304 when this filter did not change).
  const live = useLive({ inbox: true }, (e) => {
    if (e.type === "inbox") void qc.invalidateQueries({ queryKey: ["inbox"] });
  });
  const qs = new URLSearchParams({
    ...(agent ? { agent } : {}),
    ...(framework ? { framework } : {}),
    ...(tool ? { tool } : {}),
    ...(page ? { cursor: page } : {}),
    ...Object.fromEntries(new URLSearchParams(search)),
  }).toString();
  const { data, error, isFetching, dataUpdatedAt } = useQuery({
    queryKey: ["inbox", agent, framework, tool, page, search],
    queryFn: () => api<InboxData>(`/api/approvals${qs ? `?${qs}` : ""}`, { revalidate: true }),
    initialData: agent || framework || tool || page || search ? undefined : initial,
    // Only the first screen: stale from the start, so the browser asks for the whole list once hydrated.
    initialDataUpdatedAt: initial.firstScreenOf === undefined ? initial.asOfMs : 0,
    refetchInterval: live ? 15_000 : 3000,
  });
  // A page hydrated after its data went stale refetches at once, so the browser's first render is already
  // fetching while the server's HTML was not: "refreshing…" waits for hydration. Loading the rest of a first
  // screen is no refresh: the count the server gave stays until the whole list is there.
  const refreshing = useHydrated() && isFetching && data?.firstScreenOf === undefined;
  // The filter offers the tools of the whole unfiltered page as last loaded (the first screen's until then),
  // kept while a filter narrows the list.
  const whole = !agent && !framework && !tool && !page && !search && data?.firstScreenOf === undefined ? data : undefined;
  const [tools, setTools] = useState(() => toolsOf(initial.approvals));
  useEffect(() => {
    if (!whole) return;
    const offered = toolsOf(whole.approvals);
    setTools((was) => (was.join("\n") === offered.join("\n") ? was : offered));
  }, [whole]);
  const items = useMemo(() => routed(data?.approvals ?? []), [data]);
  const firstReadOnly = items.findIndex((a) => !a.canDecide);
  const router = useRouter();
  const [cursor, setCursor] = useState(0);
  const [selected, setSelected] = useState<string[]>([]);
  // Deciding the selection (or the current row): confirming an approval above a threshold, or rejecting.
  const [step, setStep] = useState<Exclude<DecideStep, "choose"> | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ManyResult | null>(null);
  const [help, setHelp] = useState(false);
  // `e` opens the preview's editor (each press grows it); the last request decided in the preview.
  const [editSignal, setEditSignal] = useState(0);
  const [decidedLast, setDecidedLast] = useState<InboxRowDto | null>(null);
  const current: InboxRowDto | undefined = items[Math.min(cursor, items.length - 1)];
  const chosen = useMemo(() => items.filter((a) => selected.includes(a.id)), [items, selected]);
  const selectedTool = chosen[0]?.tool ?? null;
  // What a/r act on: the selection, else the current row (a question is answered on its page, not here).
  const targets = chosen.length ? chosen : current && current.kind !== "question" && current.canDecide ? [current] : [];
  useEffect(() => {
    // Decided approvals leave the list: the selection keeps only those still waiting.
    setSelected((s) => s.filter((id) => items.some((a) => a.id === id)));
  }, [items]);
  const toggle = (a: InboxRowDto | undefined) => {
    if (!a || a.kind === "question" || !a.canDecide) return;
    // Approvals of one tool are decided together; a row of another says why it stays unselected.
    const other = selectedTool && a.tool !== selectedTool && !selected.includes(a.id);
    setNotice(
      other
        ? `Only approvals of one tool are selected together: ${a.tool} is not ${selectedTool}. Clear the selection to pick ${a.tool}.`
        : null,
    );
    if (!other) setSelected((s) => (s.includes(a.id) ? s.filter((x) => x !== a.id) : [...s, a.id]));
  };
  const open = (a: InboxRowDto | undefined) => {
    if (a) router.push(`/runs/${encodeURIComponent(a.runId)}#${approvalAnchor(a.id)}`);
  };
  // The selection (or the current row), or one card's own buttons on a phone.
  const run = async (decision: "approve" | "reject", list = targets, why = reason) => {
    if (!list.length || busy) return;
    setBusy(true);
    const r = await decideMany(list, decision, why);
    setBusy(false);
    setResult(r);
    setDecidedLast(null);
    setStep(null);
    setNotice(null);
    setReason("");
    setSelected([]);
    // What was decided leaves the list as soon as its decisions are answered, not once the list is read
    // again (seconds on a busy server); the read that follows confirms it.
    qc.setQueriesData<InboxData>({ queryKey: ["inbox"] }, (d) =>
      d && Array.isArray(d.approvals) ? { ...d, approvals: d.approvals.filter((a) => !r.closed.includes(a.id)) } : d,
    );
    await qc.invalidateQueries({ queryKey: ["inbox"] });
  };
  // A request whose rule sets confirmAbove is approved only after the reviewer says yes to it.
  const approve = (confirmed: boolean) => {
    if (!targets.length) return;
    if (!confirmed && targets.some((a) => a.confirm)) setStep("confirm");
    else void run("approve");
  };
  // Rebuilt each render: the handlers read the current rows, cursor and selection.
  useInboxKeys(
    {
      move: (by) => setCursor((c) => Math.max(0, Math.min(items.length - 1, Math.min(c, items.length - 1) + by))),
      toggle: () => toggle(current),
      approve: () => (current?.kind === "question" && current.canDecide && !chosen.length ? open(current) : approve(false)),
      reject: () => targets.length > 0 && setStep("reject"),
      open: () => open(current),
      edit: () => current && setEditSignal((n) => n + 1),
      help: () => setHelp((h) => !h),
    },
    step === null,
  );
  // The first render measures to the server's clock of its answer (the same in the server's HTML); later
  // ones to the last refresh, which a 304 also counts as (its body, and asOfMs, are the cached ones).
  const now = data ? Math.max(data.asOfMs, dataUpdatedAt) : initial.asOfMs;
  return (
    <>
      <form
        method="post"
        className="flex flex-wrap items-end gap-3 max-sm:[&>div]:flex-1"
        aria-label="Filter approvals"
        onSubmit={(e) => e.preventDefault()}
      >
        <FilterSelect
          id="f-agent"
          label="Agent"
          any="All agents"
          options={agents}
          value={agent}
          onChange={(e) => {
            setAgent(e.target.value);
            setPages([]);
          }}
        />
        {frameworks.length > 0 && (
          <FilterSelect
            id="f-framework"
            label="Framework"
            any="All frameworks"
            options={frameworks}
            value={framework}
            onChange={(e) => {
              setFramework(e.target.value);
              setPages([]);
            }}
          />
        )}
        <div>
          <label className="label" htmlFor="f-tool">
            Tool
          </label>
          <input
            id="f-tool"
            list="tools"
            className="input mt-1 h-9"
            value={tool}
            onChange={(e) => {
              setTool(e.target.value.trim());
              setPages([]);
            }}
            placeholder="any tool"
          />
          <datalist id="tools">
            {tools.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </div>
        <span className="text-xs text-slate-500 dark:text-slate-400" aria-live="polite">
          {refreshing
            ? "refreshing…"
            : `${data?.firstScreenOf ?? data?.approvals.length ?? 0} waiting${page ? " on this page" : ""}${data?.nextCursor ? ", more on the next page" : ""}`}
        </span>
      </form>
      <p className="hidden text-xs text-slate-500 dark:text-slate-400 sm:block">
        Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>x</kbd> select, <kbd>a</kbd> approve, <kbd>r</kbd> reject, <kbd>e</kbd> edit in the
        preview, <kbd>o</kbd> open the run,{" "}
        <button type="button" className="underline" onClick={() => setHelp(!help)} aria-expanded={help}>
          <kbd>?</kbd> all keys
        </button>
      </p>
      {help && (
        <section className="card text-sm" aria-label="Keyboard shortcuts">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
            {INBOX_KEYS.map(([k, what]) => (
              <div key={k} className="contents">
                <dt className="font-mono">{k}</dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      {(chosen.length > 0 || step) && (
        <DecideSelected
          step={step ?? "choose"}
          targets={targets}
          selectedTool={selectedTool}
          busy={busy}
          reason={reason}
          setReason={setReason}
          setStep={setStep}
          approve={approve}
          reject={() => void run("reject")}
          clear={() => setSelected([])}
        />
      )}
      {notice && (
        <p role="status" className="text-sm" data-testid="inbox-notice">
          {notice}
        </p>
      )}
      {result && (
        <div role="status" className="text-sm" data-testid="bulk-result">
          {result.decided.length} decided
          {result.failed.length > 0 && (
            <>
              ; {result.failed.length} failed:
              <ul className="list-disc pl-5 text-rose-700 dark:text-rose-300">
                {result.failed.map((f) => (
                  <li key={f.id}>
                    <span className="font-mono">{f.id}</span> ({f.tool}): {f.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      {error && <ErrorBox title="Could not load approvals">{error.message}</ErrorBox>}
      {data && data.corrupt.length > 0 && (
        <div className="card border-rose-300" role="status" aria-label="Unreadable approvals">
          <h2 className="text-sm font-semibold text-rose-700 dark:text-rose-300">
            AgentCheckpointCorruptionError: {plural(data.corrupt.length, "approval record")} could not be read
          </h2>
          <ul className="mt-1 space-y-1 text-xs">
            {data.corrupt.map((c) => (
              <li key={c.key} data-testid={`inbox-corrupt-${c.key}`}>
                <span className="font-mono">{c.key}</span>
                {c.runId && (
                  <>
                    {" "}
                    · run{" "}
                    <Link
                      prefetch={false}
                      className="font-mono text-indigo-600 underline dark:text-indigo-400"
                      href={`/runs/${encodeURIComponent(c.runId)}`}
                    >
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
      {decidedLast && (
        <p role="status" className="text-sm" data-testid="preview-decided">
          Decided <span className="font-mono">{decidedLast.tool}</span> of run {decidedLast.runId.slice(0, 8)}
          {current ? "; the next request is in the preview." : "."}
        </p>
      )}
      {!data ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">Loading…</p>
      ) : data.approvals.length === 0 ? (
        <Empty>{page ? "No more approvals on this page." : "No approvals are waiting."}</Empty>
      ) : (
        // The list and, beside it on a desk (above it on a phone), the current request whole.
        <div className="inbox-split">
          {current && (
            <div className="inbox-pane">
              <PreviewPane
                key={current.id}
                item={current}
                now={now}
                editSignal={editSignal}
                onDecided={(a) => {
                  setDecidedLast(a);
                  setResult(null);
                  setEditSignal(0);
                  void qc.invalidateQueries({ queryKey: ["inbox"] });
                }}
              />
            </div>
          )}
          <InboxList
            items={items}
            firstReadOnly={firstReadOnly}
            currentId={current?.id}
            selected={selected}
            selectedTool={selectedTool}
            now={now}
            busy={busy}
            setCursor={setCursor}
            toggle={toggle}
            open={open}
            decide={(a, decision, why) => run(decision, [a], why)}
          />
        </div>
      )}
      {(page || data?.nextCursor) && (
        <nav className="flex gap-2" aria-label="Inbox pages">
          {page && (
            <button
              type="button"
              className="btn-secondary"
              onClick={() => {
                setPages((p) => p.slice(0, -1));
                setCursor(0);
              }}
            >
              ← Previous page
            </button>
          )}
          {data?.nextCursor && (
            <button
              type="button"
              className="btn-secondary"
              onClick={() => {
                const next = data.nextCursor;
                if (next) setPages((p) => [...p, next]);
                setCursor(0);
              }}
            >
              Next page →
            </button>
          )}
        </nav>
      )}
    </>
  );
}
