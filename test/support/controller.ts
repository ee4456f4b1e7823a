/**
 * A sync controller as tests and benchmarks want it: policy sync, the default managed types, no
 * interval or debounce in the way, silent logs. `extra` overrides any option (domain filter,
 * metrics, backoff…).
 */
import { Controller } from '../../src/controller/controller.ts';
import type { ControllerOptions } from '../../src/controller/controller.ts';
import { DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { silentLogger } from '../../src/log.ts';
import type { Registry } from '../../src/registry/registry.ts';
import type { Source } from '../../src/source/source.ts';

export function testController(source: Source, registry: Registry, extra: Partial<ControllerOptions> & { domainFilter?: DomainFilter } = {}): Controller {
  const { domainFilter, ...rest } = extra;
  return new Controller({
    source,
    registry,
    plan: {
      policy: 'sync',
      managedRecordTypes: ['A', 'AAAA', 'CNAME'],
      excludeRecordTypes: [],
      domainFilter: domainFilter ?? new DomainFilter(),
      migrateFromOwner: '',
    },
    intervalMs: 60_000,
    minEventSyncIntervalMs: 0,
    dryRun: false,
    logger: silentLogger(),
    ...rest,
  });
}
