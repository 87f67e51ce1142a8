"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/components/api";
import { ErrorBox, JsonView } from "@/components/ui";
import type { z } from "zod";
import type { timelinePageDto } from "@/lib/dto";

// A checkpoint's payload, read when its row is opened: a page of 100 checkpoints carried every payload (a
// runtime snapshot each, with the messages) into its HTML twice, as text and as the data React hydrates
// from, most of a timeline page's weight and render time, for the one or two a reader opens. It is read
// from the timeline API, the page after the key of the row before it (`after`: none for a run's first).
// `compare`, shown first when open: the row's compare radios on a phone, where the row has no room for them.
export function PayloadInspector({
  runId,
  seq,
  after,
  compare,
  children,
}: {
  runId: string;
  seq: number;
  after: string | null;
  compare?: React.ReactNode;
  children?: React.ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    // The summary sits at the row's right edge (in the Payload column on a desktop; on a phone beside the
    // row's two lines, a tall target for a thumb) and what it opens takes the row's full width below.
    // What reads the payload (a query) and `children` (fork) are rendered once the row is opened: a query
    // on each closed row was a good part of a page's render on the server.
    <details className="cp-open" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cp-inspect">Inspect</summary>
      {compare}
      {open && (
        <>
          <Payload runId={runId} seq={seq} after={after} />
          {children}
        </>
      )}
    </details>
  );
}

function Payload({ runId, seq, after }: { runId: string; seq: number; after: string | null }) {
  // A few rows, in case an unreadable record (left out of the page) sits between the two.
  const qs = new URLSearchParams({ take: "3", ...(after ? { cursor: after } : {}) });
  const { data, error } = useQuery({
    queryKey: ["checkpoint-payload", runId, seq],
    queryFn: async () => {
      const page = await api<z.infer<typeof timelinePageDto>>(`/api/runs/${encodeURIComponent(runId)}/checkpoints?${qs}`);
      const c = page.checkpoints.find((x) => x.seq === seq);
      if (!c) throw new Error(`Checkpoint ${seq} could not be read`);
      return c.payload;
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
  return error ? (
    <ErrorBox title="Cannot show the payload">{error.message}</ErrorBox>
  ) : data === undefined ? (
    <p className="text-xs text-slate-600 dark:text-slate-400">Reading checkpoint {seq}…</p>
  ) : (
    <JsonView value={data} label={`Payload of checkpoint ${seq}`} />
  );
}
