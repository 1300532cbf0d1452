// The two HTTP instruments, counted on every request: a counter and a latency histogram by method, route pattern and
// status. prom-client validates and hashes the labels at every observation (about 1 µs a request, measured); here a
// request costs one map lookup and a few additions, and prom-client's registry reads the totals only when scraped,
// through the collector interface it documents (registerMetric, get()).
import type { Registry } from "prom-client";

/** What the registry asks a collector for at scrape time (prom-client's MetricObjectWithValues, as it reads it). */
interface Collected {
  name: string;
  help: string;
  type: "counter" | "histogram";
  aggregator: "sum";
  values: Array<{ metricName?: string; labels: Record<string, string | number>; value: number }>;
}

interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative), the last one for +Inf. */
  buckets: Float64Array;
}

export interface HttpMetrics {
  record(method: string, route: string, status: number, seconds: number): void;
}

export interface HttpMetricsOptions {
  buckets: readonly number[];
}

export function createHttpMetrics(registry: Registry, options: HttpMetricsOptions): HttpMetrics {
  const bounds = [...options.buckets];
  if (bounds.some((b, i) => !(Number.isFinite(b) && (i === 0 || b > bounds[i - 1]!)))) {
    throw new RangeError("Cannot create HTTP metrics: buckets must be finite and increasing");
  }
  const series = new Map<string, Series>();
  const counterName = "vrai_http_requests_total";
  const histogramName = "vrai_http_request_duration_seconds";

  function counter(): Collected {
    return {
      name: counterName,
      help: "HTTP answers by method, route pattern and status",
      type: "counter",
      aggregator: "sum",
      values: [...series.values()].map((s) => ({ labels: s.labels, value: s.count })),
    };
  }

  function histogram(): Collected {
    const values: Collected["values"] = [];
    for (const s of series.values()) {
      let cumulative = 0;
      bounds.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        values.push({ metricName: `${histogramName}_bucket`, labels: { ...s.labels, le }, value: cumulative });
      });
      cumulative += s.buckets[bounds.length]!;
      values.push({ metricName: `${histogramName}_bucket`, labels: { ...s.labels, le: "+Inf" }, value: cumulative });
      values.push({ metricName: `${histogramName}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${histogramName}_count`, labels: s.labels, value: s.count });
    }
    return {
      name: histogramName,
      help: "Time from the request's arrival at the app to its answer, by method, route pattern and status",
      type: "histogram",
      aggregator: "sum",
      values,
    };
  }

  const reset = () => series.clear();
  for (const [name, get] of [
    [counterName, counter],
    [histogramName, histogram],
  ] as const) {
    registry.registerMetric({ name, get, reset } as never);
  }

  return {
    record(method, route, status, seconds) {
      const key = `${method} ${route} ${status}`;
      let s = series.get(key);
      if (s === undefined) {
        s = {
          labels: { method, route, status: String(status) },
          count: 0,
          sum: 0,
          buckets: new Float64Array(bounds.length + 1),
        };
        series.set(key, s);
      }
      s.count++;
      s.sum += seconds;
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]!) i++;
      s.buckets[i]!++;
    },
  };
}
