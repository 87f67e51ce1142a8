"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "./api";
import { useLive } from "./live";

// The number of approvals waiting, next to "Approvals" in the navigation: pushed by the live stream
// (polled every few seconds while the stream is down).
export function PendingBadge() {
  const qc = useQueryClient();
  const live = useLive({ inbox: true }, (e) => {
    if (e.type === "inbox") void qc.invalidateQueries({ queryKey: ["pending-count"] });
  });
  const { data } = useQuery({
    queryKey: ["pending-count"],
    queryFn: () => api<{ pending: number }>("/api/approvals?count=1"),
    refetchInterval: live ? 30_000 : 4000,
  });
  if (!data?.pending) return null;
  return (
    <span
      role="status"
      data-testid="pending-badge"
      aria-label={`${data.pending} pending approvals`}
      className="ml-1 rounded-full bg-amber-500 px-1.5 py-0.5 text-xs font-semibold text-white"
    >
      {data.pending}
    </span>
  );
}
