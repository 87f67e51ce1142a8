"use client";
// One server-sent event stream per tab (GET /api/events), shared by every component that follows
// something: the badge and the inbox follow the inbox, the run page its run. One connection per tab
// matters: browsers allow six per host over HTTP/1.1, across tabs. While the stream is down, components
// keep polling at their usual rate; while it is up, they poll slowly as a safety net.
import { useEffect, useRef, useState } from "react";

export type LiveEvent =
  | { type: "run"; data: { runId: string; state?: string } }
  | { type: "delta"; data: { runId: string; step: number; offset: number; text: string } }
  | { type: "inbox"; data: Record<string, never> };

type Sub = { run?: string; inbox?: boolean; on: (e: LiveEvent) => void };

const subs = new Set<Sub>();
const connectedListeners = new Set<(c: boolean) => void>();
let source: EventSource | null = null;
let url = "";
let connected = false;
let scheduled = false;

function setConnected(c: boolean) {
  if (c === connected) return;
  connected = c;
  for (const l of connectedListeners) l(c);
}

function reconcile() {
  scheduled = false;
  const runs = [...new Set([...subs].map((s) => s.run).filter(Boolean))];
  const inbox = [...subs].some((s) => s.inbox);
  const params = new URLSearchParams();
  // One run per tab is what the pages need; a second one falls back to polling.
  if (runs[0]) params.set("run", runs[0]);
  if (inbox) params.set("inbox", "1");
  const next = params.size ? `/api/events?${params}` : "";
  if (next === url) return;
  source?.close();
  source = null;
  url = next;
  setConnected(false);
  if (!next || typeof EventSource === "undefined") return;
  const es = new EventSource(next);
  source = es;
  let readies = 0;
  es.addEventListener("ready", () => {
    setConnected(true);
    // Reconnected (after the server closed the stream: the caller's groups changed, or it restarted): what
    // happened meanwhile was never sent, so every follower refetches now.
    if (readies++ > 0 && source === es) refetchAll();
  });
  es.addEventListener("error", () => {
    if (source !== es) return;
    setConnected(false);
    // Refused for good (signed out, access ended): followers refetch and show what the server says now.
    if (es.readyState === EventSource.CLOSED) refetchAll();
  });
  for (const type of ["run", "delta", "inbox"] as const) {
    es.addEventListener(type, (m) => {
      let data: unknown;
      try {
        data = JSON.parse((m as MessageEvent<string>).data);
      } catch {
        return;
      }
      for (const s of subs) s.on({ type, data } as LiveEvent);
    });
  }
}

function refetchAll() {
  for (const s of subs) {
    if (s.inbox) s.on({ type: "inbox", data: {} });
    if (s.run) s.on({ type: "run", data: { runId: s.run } });
  }
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(reconcile);
}

/** Follows outside React (useLive's core); returns the unfollow. */
export function followLive(sub: Sub): () => void {
  subs.add(sub);
  schedule();
  return () => {
    subs.delete(sub);
    schedule();
  };
}

/** Follows a run and/or the inbox; returns whether the live stream is connected. */
export function useLive(follow: { run?: string; inbox?: boolean }, on: (e: LiveEvent) => void): boolean {
  const [isConnected, setIsConnected] = useState(false);
  const handler = useRef(on);
  handler.current = on;
  const { run, inbox } = follow;
  useEffect(() => {
    connectedListeners.add(setIsConnected);
    setIsConnected(connected);
    const unfollow = followLive({ run, inbox, on: (e) => handler.current(e) });
    return () => {
      unfollow();
      connectedListeners.delete(setIsConnected);
    };
  }, [run, inbox]);
  return isConnected;
}
