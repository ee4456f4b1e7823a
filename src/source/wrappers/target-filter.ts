/**
 * external-dns's target-filter wrapper: targets outside `--target-net-filter` or inside
 * `--exclude-target-net` are removed; an endpoint left without targets is dropped.
 */
import { cloneEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { TargetNetFilter } from '../../endpoint/target-filter.ts';
import type { Logger } from '../../log.ts';

export function filterTargets(endpoints: readonly Endpoint[], filter: TargetNetFilter, logger: Logger): Endpoint[] {
  const out: Endpoint[] = [];
  for (const ep of endpoints) {
    const kept = ep.targets.filter((t) => filter.matches(t));
    if (kept.length === ep.targets.length) {
      out.push(ep);
      continue;
    }
    if (kept.length === 0) {
      logger.debug(
        { dnsName: ep.dnsName, recordType: ep.recordType, targets: ep.targets },
        'endpoint dropped: every target filtered out by the target net filter',
      );
      continue;
    }
    const copy = cloneEndpoint(ep);
    copy.targets = kept;
    out.push(copy);
  }
  return out;
}
