"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { fromAction } from "@/components/api";
import { forkAction, forkPreviewAction } from "./actions";

// Forking asks first: a fork shares no effects with its source, so every tool call that succeeded after the
// checkpoint (a refund) runs again once approved; the confirmation names each one.
export function ForkButton({ runId, seq }: { runId: string; seq: number }) {
  const router = useRouter();
  const preview = useMutation({ mutationFn: () => fromAction(forkPreviewAction(runId, seq)) });
  const fork = useMutation({
    mutationFn: () => fromAction(forkAction(runId, seq)),
    onSuccess: (r) => router.push(`/runs/${encodeURIComponent(r.id)}`),
  });
  const repeats = preview.data?.repeats;
  const error = preview.error ?? fork.error;
  return (
    <>
      {!repeats ? (
        <button type="button" className="btn-secondary mt-2 text-xs" disabled={preview.isPending} onClick={() => preview.mutate()}>
          Fork a new run from checkpoint {seq}
        </button>
      ) : (
        <div role="alertdialog" aria-label={`Fork from checkpoint ${seq}`} className="mt-2 space-y-2 text-xs" data-testid="fork-confirm">
          {repeats.length === 0 ? (
            <p>Nothing that ran after checkpoint {seq} runs again. The new run continues from there with its own approvals.</p>
          ) : (
            <>
              <p className="font-semibold text-amber-800 dark:text-amber-300">
                The new run will do again what the original did after checkpoint {seq} (once approved):
              </p>
              <ul className="list-disc pl-5" data-testid="fork-repeats">
                {repeats.map((r) => (
                  <li key={r.toolCallId}>
                    <span className="font-mono">{r.tool}</span> {r.summary} — already ran in the original run
                  </li>
                ))}
              </ul>
            </>
          )}
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className={repeats.length ? "btn-danger" : "btn-primary"}
              // Stays disabled while the page moves to the new run: a second click would fork again.
              disabled={fork.isPending || fork.isSuccess}
              onClick={() => fork.mutate()}
            >
              {repeats.length ? "Fork anyway" : "Fork"}
            </button>
            <button type="button" className="btn-secondary" disabled={fork.isPending || fork.isSuccess} onClick={() => preview.reset()}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {error && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {error.message}
        </p>
      )}
    </>
  );
}
