"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { fromAction } from "@/components/api";
import { forkAction } from "./actions";

export function ForkButton({ runId, seq }: { runId: string; seq: number }) {
  const router = useRouter();
  const fork = useMutation({
    mutationFn: () => fromAction(forkAction(runId, seq)),
    onSuccess: (r) => router.push(`/runs/${encodeURIComponent(r.id)}`),
  });
  return (
    <>
      <button
        type="button"
        className="btn-secondary mt-2 text-xs"
        // Stays disabled while the page moves to the new run: a second click would fork again.
        disabled={fork.isPending || fork.isSuccess}
        onClick={() => fork.mutate()}
      >
        Fork a new run from checkpoint {seq}
      </button>
      {fork.error && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {fork.error.message}
        </p>
      )}
    </>
  );
}
