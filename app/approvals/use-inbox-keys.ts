"use client";
// Keyboard control of the inbox, as mail clients do it: j/k move, x selects, a approves, r rejects (asks
// for a reason), e opens the preview's editor, o opens the approval on its run page, ? shows the keys. Keys typed into a text field,
// or with a modifier, are the field's.
import { useEffect } from "react";

export const INBOX_KEYS: [string, string][] = [
  ["j / k", "next / previous approval"],
  ["x", "select (approvals of one tool)"],
  ["a", "approve the current one, or the selected ones"],
  ["r", "reject (asks for a reason)"],
  ["e", "edit the arguments in the preview"],
  ["o or Enter", "open on the run page"],
  ["?", "show or hide these keys"],
];

export type InboxKeyHandlers = {
  move: (by: 1 | -1) => void;
  toggle: () => void;
  approve: () => void;
  reject: () => void;
  open: () => void;
  edit: () => void;
  help: () => void;
};

// A checkbox or a button keeps the keys (one is focused right after a click); a text field does not.
const CLICKABLE = new Set(["checkbox", "radio", "button", "submit", "reset"]);
const typing = (t: HTMLElement | null) =>
  !!t?.closest("textarea, select, [contenteditable=true]") || (t instanceof HTMLInputElement && !CLICKABLE.has(t.type));

export function useInboxKeys(h: InboxKeyHandlers, enabled: boolean) {
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const t = e.target as HTMLElement | null;
      if (typing(t)) return;
      // Enter on a link or button is theirs.
      if (e.key === "Enter" && t?.closest("a, button")) return;
      const action = {
        j: () => h.move(1),
        k: () => h.move(-1),
        x: h.toggle,
        a: h.approve,
        r: h.reject,
        e: h.edit,
        o: h.open,
        Enter: h.open,
        "?": h.help,
      }[e.key];
      if (!action) return;
      e.preventDefault();
      action();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [h, enabled]);
}
