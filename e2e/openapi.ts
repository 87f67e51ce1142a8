// Validates live responses against /api/openapi.json: the response schema of the exact path template,
// method and status must exist in the document and accept the body.
import Ajv2020Module from "ajv/dist/2020.js";

// ajv is CommonJS: under ESM its class is the default export's default.
const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module }).default ?? Ajv2020Module;

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };

export function responseValidator(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...doc, $id: "openapi" });
  const templates = Object.keys(doc.paths).map((t) => ({
    t,
    re: new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    literal: t.split("{").length === 1,
  }));
  const seen = new Set<string>();
  const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

  return {
    /** Null when the body is what the document says; otherwise what is wrong. */
    check(method: string, url: string, status: number, body: unknown): string | null {
      const path = new URL(url, "http://x").pathname;
      // A literal path wins over a template (/api/runs/x vs /api/runs/{runId}).
      const match = templates.filter((x) => x.re.test(path)).sort((a, b) => Number(b.literal) - Number(a.literal))[0];
      if (!match) return `${method} ${path}: no path in the document`;
      const op = doc.paths[match.t][method.toLowerCase()];
      if (!op) return `${method} ${match.t}: method not in the document`;
      if (!op.responses[String(status)]) return `${method} ${match.t}: status ${status} not documented`;
      if (!op.responses[String(status)].content) {
        seen.add(`${method.toUpperCase()} ${match.t} ${status}`);
        return body === null ? null : `${method} ${match.t} ${status}: documented without a body, but one came`;
      }
      const stream = op.responses[String(status)].content?.["text/event-stream"];
      if (stream) {
        seen.add(`${method.toUpperCase()} ${match.t} ${status}`);
        return typeof body === "string" && /^(event|data|retry|:)/m.test(body)
          ? null
          : `${method} ${match.t} ${status}: not an event stream`;
      }
      // Prometheus text (/api/metrics): a scrape's exposition, comments first.
      if (op.responses[String(status)].content?.["text/plain"]) {
        seen.add(`${method.toUpperCase()} ${match.t} ${status}`);
        return typeof body === "string" && /^# (HELP|TYPE) /m.test(body) ? null : `${method} ${match.t} ${status}: not Prometheus text`;
      }
      const validate = ajv.getSchema(
        `openapi#/paths/${pointer(match.t)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`,
      );
      if (!validate) return `${method} ${match.t} ${status}: no JSON schema`;
      seen.add(`${method.toUpperCase()} ${match.t} ${status}`);
      if (validate(body)) return null;
      return `${method} ${match.t} ${status}: ${ajv.errorsText(validate.errors)} — ${JSON.stringify(body).slice(0, 300)}`;
    },
    /** Every operation of the document with the statuses seen for it. */
    coverage() {
      const ops: { op: string; statuses: string[] }[] = [];
      for (const [t, methods] of Object.entries(doc.paths))
        for (const m of Object.keys(methods)) {
          const op = `${m.toUpperCase()} ${t}`;
          ops.push({ op, statuses: [...seen].filter((s) => s.startsWith(`${op} `)).map((s) => s.slice(op.length + 1)) });
        }
      return ops;
    },
  };
}
