/**
 * Sync-loop metrics. The external-dns names are kept so existing dashboards and alerts work;
 * Hostwarden-only metrics use the hostwarden_ prefix.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';

export class ControllerMetrics {
  readonly lastSyncTimestamp: Gauge;
  readonly lastReconcileTimestamp: Gauge;
  readonly registryEndpoints: Gauge;
  readonly sourceEndpoints: Gauge;
  readonly sourceErrors: Counter;
  readonly registryErrors: Counter;
  readonly verifiedRecords: Gauge<'record_type'>;
  readonly syncDuration: Histogram;
  readonly changes: Counter<'action'>;
  readonly syncFailures: Counter<'transient'>;
  readonly retries: Counter;
  readonly consecutiveFailures: Gauge;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.lastSyncTimestamp = new Gauge({
      name: 'external_dns_controller_last_sync_timestamp_seconds',
      help: 'Time of the last successful synchronisation.',
      registers,
    });
    this.lastReconcileTimestamp = new Gauge({
      name: 'external_dns_controller_last_reconcile_timestamp_seconds',
      help: 'Time of the last attempted synchronisation.',
      registers,
    });
    this.registryEndpoints = new Gauge({
      name: 'external_dns_registry_endpoints_total',
      help: 'Endpoints the registry returned in the last synchronisation.',
      registers,
    });
    this.sourceEndpoints = new Gauge({
      name: 'external_dns_source_endpoints_total',
      help: 'Endpoints the sources returned in the last synchronisation.',
      registers,
    });
    this.sourceErrors = new Counter({ name: 'external_dns_source_errors_total', help: 'Failed reads of the sources.', registers });
    this.registryErrors = new Counter({ name: 'external_dns_registry_errors_total', help: 'Failed registry reads or writes.', registers });
    this.verifiedRecords = new Gauge({
      name: 'external_dns_controller_verified_records',
      help: 'Desired records found in the provider unchanged, by type.',
      labelNames: ['record_type'],
      registers,
    });
    this.syncDuration = new Histogram({
      name: 'hostwarden_sync_duration_seconds',
      help: 'Time one synchronisation took.',
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.changes = new Counter({ name: 'hostwarden_changes_applied_total', help: 'Record changes applied, by action.', labelNames: ['action'], registers });
    this.syncFailures = new Counter({
      name: 'hostwarden_sync_failures_total',
      help: 'Failed synchronisations, by whether the error was transient.',
      labelNames: ['transient'],
      registers,
    });
    this.retries = new Counter({ name: 'hostwarden_sync_retries_total', help: 'Synchronisations retried after a transient error.', registers });
    this.consecutiveFailures = new Gauge({ name: 'hostwarden_sync_consecutive_failures', help: 'Failed synchronisations since the last success.', registers });
  }
}
