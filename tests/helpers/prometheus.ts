// A metrics scrape as Prometheus reads it: the text fetched over HTTP and parsed by a Prometheus text-format
// parser (prom2javascript, which throws on any line it cannot read), and look-ups of one series' value.
import { Readable } from "node:stream";
import { getMetricsFromStream, type PromHistogramData, type PromData, type PromMetrics } from "prom2javascript";

export type Scrape = { metrics: PromMetrics; text: string };

export async function scrape(url: string, token?: string): Promise<Scrape> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`scrape of ${url}: ${res.status} ${text}`);
  if (!/^text\/plain; version=0\.0\.4/.test(res.headers.get("content-type") ?? ""))
    throw new Error(`scrape of ${url}: content-type ${res.headers.get("content-type")}`);
  return { metrics: await getMetricsFromStream(Readable.from([text])), text };
}

const matches = (have: Record<string, string>, want: Record<string, string>) =>
  Object.entries(want).every(([k, v]) => (have[k] ?? "") === v);

/** The sum of a counter's or gauge's series whose labels include `labels` (0 when there is none). */
export function valueIn(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  const m = s.metrics[name];
  if (!m) return 0;
  return (m.data as PromData[]).filter((d) => matches(d.labels, labels)).reduce((a, d) => a + d.value, 0);
}

/** A histogram's observations (count, sum, and the cumulative count at bucket `le`) over the series matching `labels`. */
export function histogramOf(s: Scrape, name: string, labels: Record<string, string> = {}, le?: string) {
  const m = s.metrics[name];
  const series = m ? (m.data as PromHistogramData[]).filter((d) => matches(d.labels, labels)) : [];
  return {
    count: series.reduce((a, d) => a + Number(d.count ?? 0), 0),
    sum: series.reduce((a, d) => a + Number(d.sum ?? 0), 0),
    atOrBelow: le === undefined ? 0 : series.reduce((a, d) => a + Number(d.buckets[le] ?? 0), 0),
  };
}

export const typeOf = (s: Scrape, name: string) => s.metrics[name]?.type;
