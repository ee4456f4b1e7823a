/**
 * The webhook's Prometheus metrics. Registered on the registry the command passes in, so tests and
 * several servers in one process never collide.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';

export class AdmissionMetrics {
  readonly decisions: Counter<'result' | 'reason'>;
  readonly latency: Histogram<'override_check'>;
  readonly overrideChecks: Counter<'result'>;
  readonly certificateReloads: Counter;
  readonly certificateExpiry: Gauge;
  readonly policyErrors: Counter;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.decisions = new Counter({
      name: 'hostwarden_admission_decisions_total',
      help: 'Admission decisions, by result (allowed, denied) and reason (within-policy, refused, override, malformed, …).',
      labelNames: ['result', 'reason'],
      registers,
    });
    this.latency = new Histogram({
      name: 'hostwarden_admission_decision_duration_seconds',
      help: 'Time from the whole request body to the answer, by whether a SubjectAccessReview was asked.',
      labelNames: ['override_check'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    });
    this.overrideChecks = new Counter({
      name: 'hostwarden_admission_override_checks_total',
      help: 'SubjectAccessReviews asked for refused requests, by result (allowed, denied, error).',
      labelNames: ['result'],
      registers,
    });
    this.certificateReloads = new Counter({
      name: 'hostwarden_admission_certificate_reloads_total',
      help: 'Serving certificates installed after the first.',
      registers,
    });
    this.certificateExpiry = new Gauge({
      name: 'hostwarden_admission_certificate_expiry_timestamp_seconds',
      help: 'When the serving certificate expires (Unix time).',
      registers,
    });
    this.policyErrors = new Counter({
      name: 'hostwarden_admission_policy_errors_total',
      help: 'Live policy updates refused because an entry was invalid (the last good policy stays).',
      registers,
    });
  }
}
