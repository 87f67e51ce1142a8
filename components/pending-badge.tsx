"use client";
import { useQuery } from "@tanstack/react-query";
import { api } from "./api";

// The number of approvals waiting, next to "Approvals" in the navigation; refreshed every few seconds.
export function PendingBadge() {
  const { data } = useQuery({
    queryKey: ["pending-count"],
    queryFn: () => api<{ pending: number }>("/api/approvals?count=1"),
    refetchInterval: 4000,
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
