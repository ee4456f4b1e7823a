/**
 * The webhook provider client's call counts, with external-dns's names. external-dns declares them
 * as gauges although they only grow; the type is kept so queries written for it keep working.
 */
import { Gauge } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';

export type WebhookMethod = 'records' | 'applychanges' | 'adjustendpoints';

const HELP: Readonly<Record<WebhookMethod, string>> = {
  records: 'Records',
  applychanges: 'ApplyChanges',
  adjustendpoints: 'AdjustEndpoints',
};

export class WebhookClientMetrics {
  private readonly requests = new Map<WebhookMethod, Gauge>();
  private readonly errors = new Map<WebhookMethod, Gauge>();

  constructor(registry: MetricsRegistry) {
    for (const method of Object.keys(HELP) as WebhookMethod[]) {
      this.requests.set(
        method,
        gauge(registry, `external_dns_webhook_provider_${method}_requests_total`, `Calls of the webhook provider's ${HELP[method]} method.`),
      );
      this.errors.set(
        method,
        gauge(registry, `external_dns_webhook_provider_${method}_errors_total`, `Failed calls of the webhook provider's ${HELP[method]} method.`),
      );
    }
  }

  request(method: WebhookMethod): void {
    this.requests.get(method)?.inc();
  }

  error(method: WebhookMethod): void {
    this.errors.get(method)?.inc();
  }
}

function gauge(registry: MetricsRegistry, name: string, help: string): Gauge {
  return (registry.getSingleMetric(name) as Gauge | undefined) ?? new Gauge({ name, help, registers: [registry] });
}
