// The repository's own files, for the tests that read the source (tests/meta): one walk, each test with its
// own idea of which files count.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");

/** The files under dir (relative to the root) whose name keep accepts, as root-relative paths; Prisma's generated clients left out. */
export function sourceFiles(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) return rel === "lib/generated" ? [] : sourceFiles(rel, keep);
    return keep(name) ? [rel] : [];
  });
}
