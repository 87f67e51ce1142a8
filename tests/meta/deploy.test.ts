// The deploy files say what the code does: the Kustomize base renders, and every probe it points at is a
// route the app or the worker's own port really serves; the image and compose run the bundle's entry points.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { parseEnv } from "@/lib/env";
import { OPS_PATHS } from "@/lib/ops/server";

const root = path.resolve(import.meta.dirname, "../..");
const kubectl = (() => {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
})();

type Probe = { httpGet?: { path: string; port: string | number } };
type Container = {
  name: string;
  command?: string[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  ports?: { name: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
};

// The scripts scripts/bundle.mjs writes into the bundle's package.json (read from its source).
function bundleScripts(): Record<string, string> {
  const src = readFileSync(path.join(root, "scripts/bundle.mjs"), "utf8");
  const block = src.slice(src.indexOf("scripts: {"), src.indexOf("}", src.indexOf("scripts: {")));
  return Object.fromEntries([...block.matchAll(/^\s*"?([\w:]+)"?: "([^"]+)",?$/gm)].map((m) => [m[1], m[2]]));
}

// An app route's folder for a URL path (no dynamic segments in probe paths).
const appRoute = (p: string) => path.join(root, "app", ...p.split("/").filter(Boolean), "route.ts");

describe("deploy files", () => {
  it.skipIf(!kubectl)("the Kustomize base renders; each probe is a served route on the port that serves it", () => {
    const out = execFileSync("kubectl", ["kustomize", path.join(root, "deploy/kubernetes/base")], { encoding: "utf8" });
    const docs = parseAllDocuments(out).map(
      (d) => d.toJSON() as { kind: string; metadata: { name: string }; spec: Record<string, unknown> },
    );
    expect(docs.map((d) => d.kind).sort()).toEqual([
      "Deployment",
      "Deployment",
      "PodDisruptionBudget",
      "PodDisruptionBudget",
      "Secret",
      "Service",
      "Service",
    ]);
    const containers = docs.flatMap((d) => {
      const tpl = d.spec?.template as { spec: { containers: Container[]; initContainers?: Container[] } } | undefined;
      return tpl ? [...tpl.spec.containers, ...(tpl.spec.initContainers ?? [])].map((c) => ({ owner: d.metadata.name, c })) : [];
    });
    let probes = 0;
    for (const { owner, c } of containers) {
      const opsPort = c.env?.find((e) => e.name === "AFK_OPS_PORT")?.value;
      for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
        if (!probe?.httpGet) continue;
        probes++;
        const { path: p, port } = probe.httpGet;
        const portNumber = c.ports?.find((x) => x.name === port)?.containerPort ?? port;
        if (c.command?.includes("worker.mjs")) {
          // The worker serves only its own port.
          expect(String(portNumber), `${owner} probes its ops port`).toBe(opsPort);
          expect(OPS_PATHS as readonly string[], `${owner}: ${p}`).toContain(p);
        } else {
          expect(portNumber, `${owner} probes the app's port`).toBe(3000);
          expect(existsSync(appRoute(p)), `${owner}: ${p} is app/${p}/route.ts`).toBe(true);
        }
      }
    }
    expect(probes).toBe(5);
  });

  it("the image runs the bundle's server, the compose file its worker and migrations, with the app's liveness route", () => {
    const dockerfile = readFileSync(path.join(root, "Dockerfile"), "utf8");
    expect(dockerfile).toMatch(/RUN node scripts\/bundle\.mjs --out \/out/);
    expect(dockerfile).toMatch(/^USER node$/m);
    const health = dockerfile.match(/\/api\/health\/live/);
    expect(health).not.toBeNull();
    expect(existsSync(appRoute("/api/health/live"))).toBe(true);
    const compose = parseAllDocuments(readFileSync(path.join(root, "compose.yaml"), "utf8"))[0].toJSON() as {
      services: Record<string, { command?: string[] }>;
    };
    expect(Object.keys(compose.services).sort()).toEqual(["migrate", "postgres", "web", "worker"]);
    expect(compose.services.migrate.command).toEqual(["node", "scripts/db.mjs", "deploy"]);
    expect(compose.services.worker.command).toEqual(["node", "worker.mjs"]);
  });

  it("grace periods outlast the drain (AFK_DRAIN_S, the queue's close, the span flush); npm's SIGTERM reaches long-running processes", () => {
    const budgetS = parseEnv({}).AFK_DRAIN_S + 1 + 5;
    const compose = parseAllDocuments(readFileSync(path.join(root, "compose.yaml"), "utf8"))[0].toJSON() as {
      services: Record<string, { stop_grace_period?: string }>;
    };
    for (const name of ["web", "worker"]) {
      const grace = compose.services[name].stop_grace_period ?? "10s"; // Docker's default
      expect(Number(grace.replace(/s$/, "")), `compose ${name}: stop_grace_period`).toBeGreaterThan(budgetS);
    }
    expect(Object.keys(bundleScripts())).toEqual(expect.arrayContaining(["start", "worker", "afk"]));
    for (const [label, scripts] of [
      ["package.json", JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts],
      ["the bundle's package.json", bundleScripts()],
    ] as const)
      for (const name of ["dev", "start", "worker"].filter((n) => scripts[n])) {
        // sh (dash) runs the last command as its child, and npm's SIGTERM stops only sh.
        const last = (scripts[name] as string).split("&&").at(-1)?.trim() ?? "";
        expect(last, `${label} ${name}`).toMatch(/^exec /);
      }
  });
});
