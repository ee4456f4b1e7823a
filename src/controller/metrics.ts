/**
 * Sync-loop metrics. Every external-dns name, type and label set is kept so existing dashboards
 * and alerts work (the list is test/conformance/external-dns/metrics.json); Hostwarden-only
 * metrics use the hostwarden_ prefix. external-dns lower-cases the label values of its gauge
 * vectors (`record_type="a"`), so queries match only the same spelling: `labelValue` does it here.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { Endpoint } from '../endpoint/endpoint.ts';
import type { OwnerMismatch } from '../plan/plan.ts';

export class ControllerMetrics {
  readonly lastSyncTimestamp: Gauge;
  readonly lastReconcileTimestamp: Gauge;
  readonly registryEndpoints: Gauge;
  readonly sourceEndpoints: Gauge;
  readonly sourceErrors: Counter;
  readonly registryErrors: Counter;
  readonly verifiedRecords: Gauge<'record_type'>;
  readonly registryRecords: Gauge<'record_type'>;
  readonly sourceRecords: Gauge<'record_type'>;
  readonly noOpRuns: Counter;
  readonly consecutiveSoftErrors: Gauge;
  readonly ownerMismatch: Gauge<'record_type' | 'owner' | 'foreign_owner' | 'domain'>;
  readonly syncDuration: Histogram;
  readonly changes: Counter<'action'>;
  readonly syncFailures: Counter<'transient'>;
  readonly retries: Counter;
  readonly consecutiveFailures: Gauge;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.lastSyncTimestamp = new Gauge({
      name: 'external_dns_controller_last_sync_timestamp_seconds',
      help: 'Time (Unix seconds) of the last successful synchronisation with the DNS provider.',
      registers,
    });
    this.lastReconcileTimestamp = new Gauge({
      name: 'external_dns_controller_last_reconcile_timestamp_seconds',
      help: 'Time (Unix seconds) of the last attempted synchronisation with the DNS provider.',
      registers,
    });
    this.registryEndpoints = new Gauge({
      name: 'external_dns_registry_endpoints_total',
      help: 'Endpoints the registry returned in the last synchronisation.',
      registers,
    });
    this.sourceEndpoints = new Gauge({
      name: 'external_dns_source_endpoints_total',
      help: 'Endpoints all sources returned in the last synchronisation.',
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
    this.registryRecords = new Gauge({
      name: 'external_dns_registry_records',
      help: 'Records the registry returned in the last synchronisation, by record type.',
      labelNames: ['record_type'],
      registers,
    });
    this.sourceRecords = new Gauge({
      name: 'external_dns_source_records',
      help: 'Endpoints the sources returned in the last synchronisation, by record type.',
      labelNames: ['record_type'],
      registers,
    });
    this.noOpRuns = new Counter({
      name: 'external_dns_controller_no_op_runs_total',
      help: 'Synchronisations that found nothing to change in the DNS provider.',
      registers,
    });
    this.consecutiveSoftErrors = new Gauge({
      name: 'external_dns_controller_consecutive_soft_errors',
      help: 'Synchronisations in a row that failed with a transient (retried) error; 0 after a success.',
      registers,
    });
    this.ownerMismatch = new Gauge({
      name: 'external_dns_registry_skipped_records_owner_mismatch_per_sync',
      help: 'Records of another owner (or of none) that kept the last synchronisation from creating records at their name, by type, our owner, their owner and parent domain.',
      labelNames: ['record_type', 'owner', 'foreign_owner', 'domain'],
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

  /** Sets a per-record-type gauge to the counts in `endpoints`; types no longer present disappear. */
  static countByType(gauge: Gauge<'record_type'>, endpoints: readonly Endpoint[]): void {
    const counts = new Map<string, number>();
    for (const ep of endpoints) counts.set(ep.recordType, (counts.get(ep.recordType) ?? 0) + 1);
    gauge.reset();
    for (const [type, n] of counts) gauge.set({ record_type: labelValue(type) }, n);
  }

  /** The owner-mismatch gauge holds only this synchronisation's skips (as external-dns, which resets it per plan). */
  setOwnerMismatches(ownerId: string, mismatches: readonly OwnerMismatch[]): void {
    if (ownerId === '') return;
    this.ownerMismatch.reset();
    for (const m of mismatches) {
      this.ownerMismatch.inc({
        record_type: labelValue(m.recordType),
        owner: labelValue(ownerId),
        foreign_owner: labelValue(m.foreignOwner),
        domain: labelValue(m.domain),
      });
    }
  }
}

/** A label value of an external-dns gauge vector: lower case, as external-dns writes them. */
export function labelValue(value: string): string {
  return value.toLowerCase();
}
