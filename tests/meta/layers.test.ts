// The layers hold per folder: every import from one unit of lib/ (a folder, or a file at lib/'s top) into
// another is one the table below allows, and the table is a hierarchy (no unit may reach itself through
// it). From the bottom: the runner; what every layer may use (env, log, telemetry…); the database; the
// response shapes; the parts the services are built on (auth, live, agents, webhooks, notify, execution)
// and the composition root that wires them; the services; and what calls the services (http, openapi, scim,
// ops, cli, the app and its components). An import up the table is a service's concern taken by a part
// beneath it.
//
// Vocabulary files are the one exception: a file of a higher folder that imports nothing but npm packages
// and other vocabulary (roles, groups, SSO claims, typed errors) holds no behaviour of its layer, and the
// config (env) and the shapes name them. The test checks that each still imports nothing else.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { relativeImports } from "../helpers/imports";
import { root, sourceFiles } from "../helpers/sources";

const BASE = [
  "runner",
  "env",
  "log",
  "metrics",
  "format",
  "display",
  "display-call",
  "form-check",
  "security-headers",
  "startup",
  "telemetry",
  "models",
  "timeline",
  "validation",
];
const SHAPES = ["dto-shared", "dto", "dto-protocol", "failure"];
const BELOW_SERVICES = [...BASE, "db", ...SHAPES, "live", "auth", "agents", "runtime", "webhooks", "notify", "execution", "context"];
const SERVICES = [...BELOW_SERVICES, "services"];

/** Unit → the units it may import. Bottom first. */
export const LAYERS: Record<string, readonly string[]> = {
  runner: [],
  env: ["runner"],
  log: ["env"],
  metrics: [],
  format: ["runner"],
  display: [],
  "display-call": ["display", "format"],
  "form-check": ["display", "format"],
  "security-headers": [],
  startup: ["env"],
  telemetry: ["runner", "env", "log"],
  models: ["runner"],
  timeline: ["runner"],
  validation: [],
  db: ["runner", "env", "log", "metrics", "telemetry"],
  "dto-shared": ["runner"],
  dto: ["runner", "dto-shared", "validation", "db"],
  "dto-protocol": ["runner", "db", "dto", "validation"],
  failure: ["runner", "dto", "db"],
  live: ["runner", "env", "log"],
  auth: ["runner", "env", "log", "format", "db", "live", "dto", "validation"],
  agents: ["runner", "env", "log", "telemetry", "db"],
  runtime: ["runner", "env", "telemetry", "models", "db", "agents"],
  webhooks: ["runner", "env", "log", "db", "dto-protocol"],
  // Notifications (email, Slack): built on the database and the runner, called by services, the app and
  // the execution that pauses runs.
  notify: ["runner", "env", "log", "metrics", "telemetry", "db", "dto", "dto-shared", "display", "format"],
  execution: ["runner", "env", "log", "metrics", "display", "telemetry", "db", "live", "agents", "runtime", "webhooks", "notify"],
  context: ["runner", "env", "db", "live", "agents", "runtime", "webhooks", "notify", "execution"],
  services: BELOW_SERVICES,
  http: SERVICES,
  "openapi-runtime": SERVICES,
  openapi: [...SERVICES, "openapi-runtime"],
  scim: [...SERVICES, "http"],
  ops: SERVICES,
  cli: [...SERVICES, "ops"],
  // The pages, routes and server actions, and the components they render (which call those actions).
  app: [...SERVICES, "http", "openapi", "openapi-runtime", "scim", "ops", "cli"],
};

/** Files of a higher folder any layer may import: each imports nothing from lib but other vocabulary. */
export const VOCABULARY = ["lib/auth/errors.ts", "lib/auth/roles.ts", "lib/auth/groups.ts", "lib/auth/sso.ts"];

const ts = (dir: string) => sourceFiles(dir, (n) => /\.tsx?$/.test(n) && !/\.test\.tsx?$/.test(n));

/** lib/services/decide.ts → services; lib/dto.ts → dto; app/… and components/… → app. */
export function unitOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] !== "lib") return "app";
  return parts.length > 2 ? parts[1] : parts[1].replace(/\.tsx?$/, "");
}

export type Edge = { from: string; to: string };

/** The imports that run up the table (a vocabulary file is never one). */
export function upward(edges: Edge[], layers = LAYERS, vocabulary = VOCABULARY): Edge[] {
  return edges.filter(({ from, to }) => {
    const [a, b] = [unitOf(from), unitOf(to)];
    return a !== b && !vocabulary.includes(to) && !layers[a]?.includes(b);
  });
}

function importEdges(): Edge[] {
  const files = ["lib", "app", "components"].flatMap(ts);
  const known = new Set(files);
  return files.flatMap((f) =>
    [...new Set(relativeImports(f, readFileSync(path.join(root, f), "utf8"), known, { prefix: "@/", dir: "" }))].map((to) => ({
      from: f,
      to,
    })),
  );
}

describe("layers", () => {
  const edges = importEdges();

  it("every unit of lib/ has its place in the table", () => {
    const units = new Set(edges.flatMap((e) => [unitOf(e.from), unitOf(e.to)]));
    expect(edges.length).toBeGreaterThan(500);
    expect([...units].filter((u) => !(u in LAYERS)).sort()).toEqual([]);
  });

  it("no import runs up the layers", () => {
    expect(upward(edges).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it("the table is a hierarchy: no unit reaches itself through what it may import", () => {
    const reach = (u: string, seen = new Set<string>()): Set<string> => {
      for (const d of LAYERS[u] ?? []) if (!seen.has(d)) reach(d, seen.add(d));
      return seen;
    };
    expect(Object.keys(LAYERS).filter((u) => reach(u).has(u))).toEqual([]);
  });

  it("vocabulary files import nothing from lib but other vocabulary", () => {
    const known = new Set(ts("lib"));
    for (const f of VOCABULARY) {
      const deps = relativeImports(f, readFileSync(path.join(root, f), "utf8"), known);
      expect(
        deps.filter((d) => !VOCABULARY.includes(d)),
        f,
      ).toEqual([]);
    }
  });

  it("the count sees an upward import, a skip down is allowed, and vocabulary passes", () => {
    const found = upward([
      { from: "lib/execution/worker.ts", to: "lib/services/run-view.ts" },
      { from: "lib/dto.ts", to: "lib/services/schemas.ts" },
      { from: "app/page.tsx", to: "lib/db/runs.ts" },
      { from: "lib/env.ts", to: "lib/auth/roles.ts" },
      { from: "lib/db/runs.ts", to: "lib/db/client.ts" },
    ]);
    expect(found.map((e) => e.from)).toEqual(["lib/execution/worker.ts", "lib/dto.ts"]);
  });
});

describe("Prisma's error codes", () => {
  it("are read only in lib/db (the rest asks lib/db/errors.ts what happened)", () => {
    const files = ["lib", "app", "components", "agents"].flatMap(ts).filter((f) => !f.startsWith("lib/db/"));
    const offenders = files.filter((f) => /["'`]P\d{4}["'`]/.test(readFileSync(path.join(root, f), "utf8")));
    expect(offenders).toEqual([]);
    expect(/["'`]P2002["'`]/.test(readFileSync(path.join(root, "lib/db/errors.ts"), "utf8"))).toBe(true);
  });
});
