"use client";
import { useEffect, useRef } from "react";
import { plural } from "@/lib/format";

// With the console open in a background tab, the browser's Notification API tells the reviewer that more
// requests wait (only once they allowed it, on the Settings page). One notification per rise of the
// count, replaced by the next (same tag); clicking it brings the inbox forward.
export function useDesktopNotice(pending: number) {
  const last = useRef<number | null>(null);
  useEffect(() => {
    const before = last.current;
    last.current = pending;
    if (before === null || pending <= before) return;
    if (typeof Notification === "undefined" || Notification.permission !== "granted" || document.visibilityState === "visible") return;
    const n = new Notification("AFK Console", { body: `${plural(pending, "request")} wait for a decision`, tag: "afk-pending" });
    n.onclick = () => {
      window.focus();
      window.location.assign("/approvals");
      n.close();
    };
  }, [pending]);
}
