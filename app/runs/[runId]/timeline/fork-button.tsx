"use client";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { forkAction } from "./actions";

export function ForkButton({ runId, seq }: { runId: string; seq: number }) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        className="btn-secondary text-xs"
        disabled={pending}
        aria-label={`Fork from checkpoint ${seq}`}
        onClick={() =>
          start(async () => {
            const r = await forkAction(runId, seq);
            if (r.ok) router.push(`/runs/${encodeURIComponent(r.data.id)}`);
            else setError(r.error);
          })
        }
      >
        Fork from here
      </button>
      {error && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {error}
        </p>
      )}
    </>
  );
}
