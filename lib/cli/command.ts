// What a CLI command is (lib/cli/main.ts runs them; lib/cli/admin.ts adds users and tokens).
import type { FlagSpec, Parsed } from "./args.ts";
import type { Backend } from "./backend.ts";

/** stdin: the whole of standard input (for --password-stdin), when the caller has one. */
export type Io = { out: (s: string) => void; err: (s: string) => void; stdin?: () => Promise<string> };
export type Ctx = {
  p: Parsed;
  backend: () => Promise<Backend>;
  print: (human: string, json: unknown) => void;
  io: Io;
  /** Who acts on the database: --as, else AFK_ACTOR. */
  as: string | undefined;
};
export type Command = { flags: FlagSpec; local?: true; run: (c: Ctx) => Promise<void> };
