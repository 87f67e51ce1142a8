// The arguments of a command → its positional arguments and its flags. Each command names the flags it
// takes; any other flag is a usage error rather than silently ignored.
import { UsageError } from "./backend.ts";

export type Parsed = { command: string; positional: string[]; flags: Map<string, string | true> };

/** Flags every command takes. */
export const GLOBAL_FLAGS = { json: "bool", as: "value", help: "bool" } as const;
export type FlagSpec = Record<string, "bool" | "value">;

/** Parses the arguments after the command with the flags it takes (and the global ones). */
export function parseArgs(command: string, rest: string[], spec: FlagSpec): Parsed {
  const all: FlagSpec = { ...GLOBAL_FLAGS, ...spec };
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--") {
      positional.push(...rest.slice(i + 1));
      break;
    }
    if (!a.startsWith("--")) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = a.slice(2, eq < 0 ? undefined : eq);
    const kind = all[name];
    if (!kind) throw new UsageError(`${command} takes no --${name}`);
    if (kind === "bool") {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    } else if (eq >= 0) flags.set(name, a.slice(eq + 1));
    else if (i + 1 < rest.length) flags.set(name, rest[++i]);
    else throw new UsageError(`--${name} needs a value`);
  }
  return { command, positional, flags };
}

export const flag = (p: Parsed, name: string): string | undefined => {
  const v = p.flags.get(name);
  return typeof v === "string" ? v : undefined;
};

export const has = (p: Parsed, name: string) => p.flags.get(name) === true;

export function jsonFlag(p: Parsed, name: string): Record<string, unknown> | undefined {
  const text = flag(p, name);
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new UsageError(`--${name} is not valid JSON`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new UsageError(`--${name} must be a JSON object`);
  return v as Record<string, unknown>;
}

export function positional(p: Parsed, index: number, what: string): string {
  const v = p.positional[index];
  if (!v) throw new UsageError(`${p.command} needs ${what}`);
  return v;
}
