// Types of node-runtime.mjs for the TypeScript that imports it (the package test runs the client on Node 24).
export function supported(): boolean;
export function nodeOf(major: number | string): { node: string; home: string };
export function betterSqliteFor(node: { node: string; home: string }): string;
