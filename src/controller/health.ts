/**
 * What `run` answers on /healthz and /readyz, from the sync loop's state (pure, so it is tested
 * without a server).
 *
 * - /healthz (liveness) fails when the loop looks stuck (no attempt for three intervals and a
 *   minute) or when `maxConsecutiveFailures` syncs in a row have failed, so a process that can no
 *   longer do its job (file descriptors gone, credentials revoked) is restarted.
 * - /readyz (readiness) succeeds once a sync has succeeded and stays so: later failures keep the
 *   records already published (and the embedded DNS server answering them), which beats none.
 *   With the embedded DNS server (`Readiness`), it also waits until the server listens and answers
 *   every zone's latest content, so a pod joins the Service only once it answers what the first
 *   sync published; once so, a later zone swap in progress does not flap it (the previous content
 *   still answers). From the stop signal on it fails at once, so the endpoints controller takes
 *   the pod out of the Service while the DNS server still answers (the shutdown drain).
 */
import type { HealthReport } from '../http/ops-server.ts';

export interface SyncState {
  /** Milliseconds since the epoch; 0 before the first. */
  lastAttemptAt: number;
  lastSuccessAt: number;
  consecutiveFailures: number;
}

export interface LivenessOptions {
  now: number;
  /** No attempt for this long means the loop is stuck. */
  staleAfterMs: number;
  /** Failed syncs in a row that make the process unhealthy; 0 never does. */
  maxConsecutiveFailures: number;
}

export function liveness(s: SyncState, o: LivenessOptions): HealthReport {
  const idle = o.now - s.lastAttemptAt;
  if (s.lastAttemptAt !== 0 && idle >= o.staleAfterMs) return { ok: false, detail: `no synchronisation attempted for ${Math.round(idle / 1000)}s` };
  if (o.maxConsecutiveFailures > 0 && s.consecutiveFailures >= o.maxConsecutiveFailures) {
    return {
      ok: false,
      detail: `${s.consecutiveFailures} synchronisations in a row failed (limit --healthz-max-consecutive-failures=${o.maxConsecutiveFailures})`,
    };
  }
  return { ok: true, detail: 'ok' };
}

export function readiness(s: SyncState): HealthReport {
  if (s.lastSuccessAt > 0) return { ok: true, detail: 'ok' };
  if (s.consecutiveFailures > 0) return { ok: false, detail: `not synchronised yet: ${s.consecutiveFailures} attempts failed` };
  return { ok: false, detail: 'not synchronised yet' };
}

/** The embedded DNS server's side of readiness (DnsServer.servingState()). */
export interface DnsServingState {
  listening: boolean;
  zones: number;
  loading: string[];
  failed: { zone: string; error: string }[];
}

/** /readyz of `run`: the sync's readiness, the DNS server's, and the stop signal. */
export class Readiness {
  private readonly sync: SyncState;
  private dns: (() => DnsServingState) | undefined;
  private replica: (() => string | undefined) | undefined;
  private stopped = false;
  /** Set the first time everything was ready; from then on only the listeners and the stop count. */
  private caughtUp = false;

  constructor(sync: SyncState) {
    this.sync = sync;
  }

  /** The DNS server to wait for (embedded provider). */
  watchDns(state: () => DnsServingState): void {
    this.dns = state;
  }

  /** A follower replica of an embedded set: why it is not current yet (undefined once it is, or while it leads). */
  watchReplica(notReady: () => string | undefined): void {
    this.replica = notReady;
  }

  /** The process was asked to stop: /readyz fails from now on. */
  stopping(): void {
    this.stopped = true;
  }

  report(): HealthReport {
    if (this.stopped) return { ok: false, detail: 'shutting down: draining DNS queries before stopping' };
    const synced = readiness(this.sync);
    if (!synced.ok) return synced;
    if (this.dns === undefined) return synced;
    const dns = this.dns();
    if (!dns.listening) return { ok: false, detail: 'the DNS server is not listening' };
    const behind = this.replica?.();
    if (behind !== undefined) return { ok: false, detail: behind };
    if (this.caughtUp) return synced;
    const notReady = dnsNotReady(dns);
    if (notReady !== undefined) return { ok: false, detail: notReady };
    this.caughtUp = true;
    return synced;
  }
}

function dnsNotReady(dns: DnsServingState): string | undefined {
  const parts: string[] = [];
  if (dns.loading.length > 0) {
    parts.push(`the DNS server is still loading ${dns.loading.length} of ${dns.zones} zones (${listSome(dns.loading)})`);
  }
  if (dns.failed.length > 0) parts.push(`zones failed to load: ${listSome(dns.failed.map((f) => `${f.zone}: ${f.error}`))}`);
  return parts.length === 0 ? undefined : parts.join('; ');
}

function listSome(items: string[]): string {
  const shown = items.slice(0, 5).join(', ');
  return items.length > 5 ? `${shown}, and ${items.length - 5} more` : shown;
}
