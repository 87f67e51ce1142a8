import Link from "next/link";

/** "forked from 1a2b3c4d": a forked run's link to its origin, wherever a run is listed (its effects may already have happened there). */
export function ForkedFrom({ runId }: { runId: string }) {
  return (
    <span className="block text-xs" data-testid="forked-from">
      forked from{" "}
      <Link prefetch={false} className="underline" title={runId} href={`/runs/${encodeURIComponent(runId)}`}>
        {runId.slice(0, 8)}
      </Link>
    </span>
  );
}
