/**
 * external-dns's instrumented HTTP client metric: the latency of each outgoing request, by scheme,
 * host, last path segment, method and status (empty when no answer came). One Summary per metrics
 * registry, shared by every client that reports into it.
 */
import { Summary } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';

export const HTTP_REQUEST_DURATION = 'external_dns_http_request_duration_seconds';

type Labels = 'handler' | 'scheme' | 'host' | 'path' | 'method' | 'status';

export class HttpRequestMetrics {
  private readonly summary: Summary<Labels>;

  constructor(registry: MetricsRegistry) {
    const existing = registry.getSingleMetric(HTTP_REQUEST_DURATION) as Summary<Labels> | undefined;
    this.summary =
      existing ??
      new Summary({
        name: HTTP_REQUEST_DURATION,
        help: 'Latency in seconds of outgoing HTTP requests.',
        // external-dns sets `handler` as a constant label; prom-client has none, so every observation passes it.
        labelNames: ['handler', 'scheme', 'host', 'path', 'method', 'status'],
        percentiles: [0.5, 0.9, 0.99],
        registers: [registry],
      });
  }

  /** Records one request; `status` undefined when the request failed without an answer. */
  observe(url: URL, method: string, status: number | undefined, seconds: number): void {
    const segments = url.pathname.split('/');
    this.summary.observe(
      {
        handler: 'instrumented_http',
        scheme: url.protocol.replace(/:$/, ''),
        host: url.host,
        path: segments[segments.length - 1] ?? '',
        method,
        status: status === undefined ? '' : String(status),
      },
      seconds,
    );
  }
}
