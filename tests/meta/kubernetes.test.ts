// The Kustomize base and its optional ServiceMonitor component, rendered by kubectl (no cluster needed)
// and checked offline: every object against the Kubernetes API's schema (kubernetes-models' validators,
// generated from the OpenAPI spec; the ServiceMonitor against the Prometheus Operator's CRD), then what a
// hardened deployment needs: limits, a read-only root with writable volumes where the app writes, no
// privilege escalation, no capabilities, seccomp RuntimeDefault, non-root; migrations that a re-apply
// with a new image runs again (no Job with a fixed name); scrape annotations and Services for both
// metrics ports; a PodDisruptionBudget for each Deployment; grace periods over the drain.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { parseEnv } from "@/lib/env";
import { OPS_PATHS } from "@/lib/ops/server";

const root = path.resolve(import.meta.dirname, "../..");
const kube = path.join(root, "deploy/kubernetes");

// The rendered YAML is read loosely below; its shape is what the schema validators check first.
// biome-ignore lint/suspicious/noExplicitAny: rendered YAML, checked by the schema validators
type Loose = any;
type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; spec?: Loose };

const models: Record<string, new (data: Loose) => { validate(): void }> = {
  "apps/v1/Deployment": Deployment,
  "v1/Service": Service,
  "v1/Secret": Secret,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
};

function render(dir: string): Obj[] {
  const out = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
  return parseAllDocuments(out).map((d) => d.toJSON() as Obj);
}

// An overlay as an operator writes one: the base plus the component.
function renderWithServiceMonitor(): Obj[] {
  const dir = mkdtempSync(path.join(tmpdir(), "afk-overlay-"));
  try {
    const rel = path.relative(dir, kube);
    writeFileSync(
      path.join(dir, "kustomization.yaml"),
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${rel}/base\ncomponents:\n  - ${rel}/components/servicemonitor\n`,
    );
    return render(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Every object is one the API knows, and valid by its schema.
function validateAll(docs: Obj[]) {
  for (const d of docs) {
    const Model = models[`${d.apiVersion}/${d.kind}`];
    expect(Model, `${d.apiVersion} ${d.kind} ${d.metadata.name}: a kind these manifests are checked for`).toBeDefined();
    expect(() => new Model(d).validate(), `${d.kind} ${d.metadata.name}`).not.toThrow();
  }
}

const deployments = (docs: Obj[]) => docs.filter((d) => d.kind === "Deployment");
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

describe("Kubernetes manifests (kubectl kustomize, validated offline)", () => {
  const base = render(path.join(kube, "base"));

  it("every rendered object is valid by the Kubernetes schemas, the ServiceMonitor component's too", () => {
    validateAll(base);
    const withMonitor = renderWithServiceMonitor();
    validateAll(withMonitor);
    expect(
      withMonitor
        .filter((d) => d.kind === "ServiceMonitor")
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(["afk-console-web", "afk-console-worker"]);
  });

  it("the schema check catches a wrong type (it is not a no-op)", () => {
    const d = structuredClone(deployments(base)[0]);
    d.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = "yes";
    expect(() => new Deployment(d).validate()).toThrow(/readOnlyRootFilesystem must be boolean/);
  });

  it("each pod is hardened: non-root, seccomp RuntimeDefault, read-only root, no escalation, no capabilities, requests and limits", () => {
    for (const d of deployments(base)) {
      const pod = d.spec.template.spec;
      expect(pod.securityContext, d.metadata.name).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      expect(pod.automountServiceAccountToken, d.metadata.name).toBe(false);
      const volumes = new Map((pod.volumes ?? []).map((v: { name: string; emptyDir?: object }) => [v.name, v]));
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const who = `${d.metadata.name}/${c.name}`;
        expect(c.securityContext, who).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ["ALL"] },
        });
        for (const kind of ["requests", "limits"]) {
          expect(c.resources?.[kind]?.cpu, `${who} ${kind}.cpu`).toBeTruthy();
          expect(c.resources?.[kind]?.memory, `${who} ${kind}.memory`).toBeTruthy();
        }
        // Writable where it writes: /tmp always (HOME points there), the data directory and Next's cache.
        const mounts = new Map(
          (c.volumeMounts ?? []).map((m: { mountPath: string; name: string; readOnly?: boolean }) => [m.mountPath, m]),
        );
        const writable = (p: string) => {
          const m = mounts.get(p) as { name: string; readOnly?: boolean } | undefined;
          expect(m, `${who} mounts ${p}`).toBeDefined();
          expect(m?.readOnly, `${who} ${p} writable`).not.toBe(true);
          expect((volumes.get(m?.name ?? "") as { emptyDir?: object } | undefined)?.emptyDir, `${who} ${p} is an emptyDir`).toBeDefined();
        };
        writable("/tmp");
        expect(c.env?.find((e: { name: string }) => e.name === "HOME")?.value, `${who} HOME`).toBe("/tmp");
        if (c.name === "web") writable("/app/.next/cache");
        const dataDir = c.env?.find((e: { name: string }) => e.name === "AFK_DATA_DIR")?.value;
        if (c.name !== "migrate") {
          expect(dataDir, `${who} AFK_DATA_DIR`).toBeDefined();
          writable(dataDir);
        }
      }
    }
  });

  it("migrations run from the image being rolled out (the web pods' init container), not from a Job a re-apply cannot change", () => {
    expect(base.filter((d) => d.kind === "Job")).toEqual([]);
    const web = deployments(base).find((d) => d.metadata.name === "afk-console-web");
    expect(web?.spec.template.spec.initContainers).toEqual([
      expect.objectContaining({
        name: "migrate",
        image: web?.spec.template.spec.containers[0].image,
        command: ["node", "scripts/db.mjs", "deploy"],
      }),
    ]);
    expect(existsSync(path.join(root, "scripts/db.mjs"))).toBe(true);
  });

  it("both metrics ports are scraped: annotations on each pod, a Service on each port, the ServiceMonitors select them", () => {
    const services = base.filter((d) => d.kind === "Service");
    for (const d of deployments(base)) {
      const tpl = d.spec.template;
      const a = tpl.metadata.annotations ?? {};
      expect(a["prometheus.io/scrape"], d.metadata.name).toBe("true");
      const c = tpl.spec.containers[0];
      const port = c.ports.find((p: { containerPort: number }) => String(p.containerPort) === a["prometheus.io/port"]);
      expect(port, `${d.metadata.name}: prometheus.io/port is a container port`).toBeDefined();
      if (c.command?.includes("worker.mjs")) expect(OPS_PATHS as readonly string[]).toContain(a["prometheus.io/path"]);
      else expect(existsSync(path.join(root, "app", ...a["prometheus.io/path"].split("/").filter(Boolean), "route.ts"))).toBe(true);
      // A Service selects these pods and exposes that port by name.
      const svc = services.find(
        (s) =>
          matches(s.spec.selector, tpl.metadata.labels) && s.spec.ports.some((p: { targetPort: string }) => p.targetPort === port.name),
      );
      expect(svc, `${d.metadata.name}: a Service for port ${port.name}`).toBeDefined();
    }
    const withMonitor = renderWithServiceMonitor();
    for (const m of withMonitor.filter((d) => d.kind === "ServiceMonitor")) {
      const svc = withMonitor.find((s) => s.kind === "Service" && matches(m.spec.selector.matchLabels, s.metadata.labels));
      expect(svc, `${m.metadata.name} selects a Service`).toBeDefined();
      for (const e of m.spec.endpoints) expect(svc?.spec.ports.map((p: { name: string }) => p.name)).toContain(e.port);
      // The web endpoint's token is the generated Secret's (its name carries the content hash).
      const cred = m.spec.endpoints[0].authorization?.credentials;
      if (cred) expect(withMonitor.find((s) => s.kind === "Secret")?.metadata.name).toBe(cred.name);
    }
  });

  it("each Deployment has a PodDisruptionBudget and a grace period over the drain", () => {
    const budgetS = parseEnv({}).AFK_DRAIN_S + 1 + 5;
    const pdbs = base.filter((d) => d.kind === "PodDisruptionBudget");
    for (const d of deployments(base)) {
      expect(
        pdbs.filter((p) => matches(p.spec.selector.matchLabels, d.spec.template.metadata.labels)),
        d.metadata.name,
      ).toHaveLength(1);
      expect(d.spec.template.spec.terminationGracePeriodSeconds, d.metadata.name).toBeGreaterThan(budgetS);
    }
  });
});
