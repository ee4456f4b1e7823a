/**
 * What `run` answers on /healthz and /readyz, from the sync loop's state (pure, so it is tested
 * without a server).
 *
 * - /healthz (liveness) fails when the loop looks stuck (no attempt for three intervals and a
 *   minute) or when `maxConsecutiveFailures` syncs in a row have failed, so a process that can no
 *   longer do its job (file descriptors gone, credentials revoked) is restarted.
 * - /readyz (readiness) succeeds once a sync has succeeded and stays so: later failures keep the
 *   records already published (and the embedded DNS server answering them), which beats none.
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
