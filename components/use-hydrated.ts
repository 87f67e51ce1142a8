"use client";
import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False in the server's HTML and while React hydrates it, true from the next render on. For what only the
 * browser knows: rendering it in the first pass would differ from the server's HTML (a hydration error).
 */
export const useHydrated = () =>
  useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
