// A real OTLP/HTTP receiver for tests: node:http taking POST /v1/traces with JSON bodies (the protocol the
// console's exporter speaks), flattening every span it receives with its service name.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KeyValue[];
  events?: { name: string; timeUnixNano: string; attributes?: KeyValue[] }[];
  links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
};
type ExportRequest = {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[] }[];
};

export type Attrs = Record<string, unknown>;
export type ReceivedSpan = {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's numbering (SPAN_KIND_SERVER is 2), not the API's SpanKind. */
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Attrs;
  events: { name: string; attributes: Attrs }[];
  links: { traceId: string; spanId: string; attributes: Attrs }[];
  status: { code: number; message?: string };
  /** When the receiver got it. */
  receivedAt: number;
};

function anyValue(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(anyValue);
  return undefined;
}
const attrs = (kv: KeyValue[] | undefined): Attrs => Object.fromEntries((kv ?? []).map((a) => [a.key, anyValue(a.value)]));
const ms = (nanos: string) => Number(BigInt(nanos) / 1_000_000n);

export type OtlpReceiver = { url: string; spans: ReceivedSpan[]; requests: { contentType: string | undefined }[]; close(): Promise<void> };

/** port: a given one (a collector coming back where one was unreachable), else any free one. */
export async function otlpReceiver(port = 0): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: { contentType: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      requests.push({ contentType: req.headers["content-type"] });
      let body: ExportRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ExportRequest;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const now = Date.now();
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attrs(rs.resource?.attributes)["service.name"] ?? "");
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              startMs: ms(s.startTimeUnixNano),
              endMs: ms(s.endTimeUnixNano),
              attributes: attrs(s.attributes),
              events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
              links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId, attributes: attrs(l.attributes) })),
              status: { code: s.status?.code ?? 0, message: s.status?.message },
              receivedAt: now,
            });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    spans,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
