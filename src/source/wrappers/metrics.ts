/**
 * The gauges of what the source chain drops before planning, with external-dns's names and labels:
 * endpoints rejected as invalid and exact duplicates, by record type and source. Both hold the
 * state of the last `endpoints()` call, not a running total. Label values are lower case, as
 * external-dns writes them (`record_type="a"`).
 */
import { Gauge } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';
import { LABEL_RESOURCE } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { InvalidEndpoint } from '../source.ts';

type Labels = 'record_type' | 'source_type';

export class SourceChainMetrics {
  readonly invalid: Gauge<Labels>;
  readonly deduplicated: Gauge<Labels>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.invalid = new Gauge({
      name: 'external_dns_source_invalid_endpoints',
      help: 'Endpoints rejected right now because their configuration is invalid, by record type and source.',
      labelNames: ['record_type', 'source_type'],
      registers,
    });
    this.deduplicated = new Gauge({
      name: 'external_dns_source_deduplicated_endpoints',
      help: 'Endpoints dropped right now as exact duplicates of another, by record type and source.',
      labelNames: ['record_type', 'source_type'],
      registers,
    });
  }

  /** Replaces both gauges with the counts of one `endpoints()` call. */
  set(invalid: readonly InvalidEndpoint[], duplicates: readonly Endpoint[]): void {
    this.invalid.reset();
    for (const e of invalid) this.invalid.inc({ record_type: e.recordType.toLowerCase(), source_type: e.sourceType.toLowerCase() });
    this.deduplicated.reset();
    for (const ep of duplicates) this.deduplicated.inc({ record_type: ep.recordType.toLowerCase(), source_type: sourceTypeOf(ep).toLowerCase() });
  }
}

/**
 * The kind of object an endpoint came from, read from its resource label (`service/default/web`
 * → `service`), or `unknown` as external-dns says for endpoints without an object reference.
 */
export function sourceTypeOf(ep: Endpoint): string {
  const resource = ep.labels[LABEL_RESOURCE] ?? '';
  const slash = resource.indexOf('/');
  return slash > 0 ? resource.slice(0, slash) : 'unknown';
}
