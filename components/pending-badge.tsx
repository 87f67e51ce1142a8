"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { titleWithCount } from "@/lib/format";
import { api } from "./api";
import { useLive } from "./live";
import { useDesktopNotice } from "./desktop-notice";

// The number of approvals waiting, next to "Approvals" in the navigation and in front of the tab's title
// ("(3) Runs · AFK Console", as mail clients do): pushed by the live stream (polled every few seconds while
// the stream is down).
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
  const pending = data?.pending ?? 0;
  useDesktopNotice(pending);
  useEffect(() => {
    // Each page sets its own title when it is navigated to: the count goes back in front of it.
    const apply = () => {
      const want = titleWithCount(document.title, pending);
      if (document.title !== want) document.title = want;
    };
    apply();
    const watch = new MutationObserver(apply);
    watch.observe(document.head, { subtree: true, childList: true, characterData: true });
    return () => {
      watch.disconnect();
      document.title = titleWithCount(document.title, 0);
    };
  }, [pending]);
  if (!pending) return null;
  return (
    <span
      role="status"
      data-testid="pending-badge"
      aria-label={`${pending} pending approvals`}
      className="ml-1 rounded-full bg-amber-700 px-1.5 py-0.5 text-xs font-semibold text-white"
    >
      {pending}
    </span>
  );
}
