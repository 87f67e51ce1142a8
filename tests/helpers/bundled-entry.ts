// A child process's entry compiled once per test file into one ES module, so that each of the many
// processes a test starts runs `node <file>` instead of compiling and resolving every project file through
// tsx's loader: the loader's start-up was about half of each child's CPU (≈1.3 s → 0.6 s on two loaded
// cores), and crash.test.ts and cli.test.ts start well over a hundred of them. The project's own files are
// bundled as they are; packages stay external and load from node_modules as under tsx, so the child runs the
// same code (the bundle sits under data/ for that resolution and is removed when the test process exits).
// Next is imported as `next/server` (no exports map): Node's ESM loader needs its file's name, which the
// plugin below gives it.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";

const root = path.resolve(import.meta.dirname, "../..");

// A package without an exports map imported by subpath without an extension: external, by its file's name.
const subpathFiles: Plugin = {
  name: "subpath-files",
  setup(b) {
    b.onResolve({ filter: /^(@[^/]+\/)?[^./][^/]*\/[^.]+$/ }, ({ path: spec }) => {
      const pkg = spec
        .split("/")
        .slice(0, spec.startsWith("@") ? 2 : 1)
        .join("/");
      const dir = path.join(root, "node_modules", pkg);
      if (!existsSync(path.join(dir, "package.json")) || JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).exports) return;
      return existsSync(path.join(root, "node_modules", `${spec}.js`)) ? { path: `${spec}.js`, external: true } : undefined;
    });
  },
};

const built = new Map<string, Promise<string>>();

/** The path of a bundled copy of `entry` (relative to the project root); run it with `node --conditions=react-server`. */
export function bundledEntry(entry: string): Promise<string> {
  let file = built.get(entry);
  if (!file) {
    file = bundle(entry);
    built.set(entry, file);
  }
  return file;
}

async function bundle(entry: string): Promise<string> {
  const dir = path.join(root, "data/test/bundles");
  mkdirSync(dir, { recursive: true });
  // A test process that was killed left its bundles behind: those of processes no longer alive go.
  for (const f of readdirSync(dir)) {
    const pid = Number(f.match(/-(\d+)-[0-9a-f]+\.mjs$/)?.[1]);
    if (pid && !alive(pid)) rmSync(path.join(dir, f), { force: true });
  }
  const outfile = path.join(dir, `${path.basename(entry, ".ts")}-${process.pid}-${randomBytes(3).toString("hex")}.mjs`);
  process.once("exit", () => rmSync(outfile, { force: true }));
  await build({
    entryPoints: [path.join(root, entry)],
    outfile,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["react-server"],
    plugins: [subpathFiles],
    logLevel: "warning",
  });
  return outfile;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
