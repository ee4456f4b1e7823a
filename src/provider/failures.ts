/**
 * Partial failures: providers apply independent parts of a sync (one zone's change, one record
 * set) separately, so one bad part does not block the rest. These helpers name the failed part
 * and fold several failures into the one error the controller sees.
 */
import { HostwardenError, ProviderError, errorMessage, isTransient } from '../errors.ts';

/** A failed part, named by zone and records, keeping the cause's transient flag and code. */
export function partFailure(provider: string, zone: string, what: string, err: unknown): ProviderError {
  return new ProviderError(provider, `${what}: ${errorMessage(err)}`, {
    zone,
    transient: isTransient(err),
    cause: err,
    code: err instanceof HostwardenError ? err.code : 'PROVIDER_FAILED',
  });
}

/**
 * Throws nothing, the single failure, or one error listing them all. The combined error is
 * transient when any part was: a retry then heals those parts, while the parts already applied
 * plan as no-ops.
 */
export function throwFailures(provider: string, failures: readonly ProviderError[], noun: string): void {
  if (failures.length === 0) return;
  if (failures.length === 1) throw failures[0] as ProviderError;
  throw new ProviderError(provider, `${failures.length} ${noun} failed: ${failures.map((f) => f.message).join('; ')}`, {
    transient: failures.some((f) => f.transient),
    cause: new AggregateError(failures),
  });
}
