/**
 * The endpoint-processing wrappers, in external-dns's order after the deduplicating source:
 * NAT64 A records, the target net filter, PTR records, then the post-processor (min TTL, prefer
 * alias, other providers' properties). NAT64 and the filter are added only when their flags ask for
 * them. Flags are checked here, once, at start-up.
 */
import type { Config } from '../../config/config.ts';
import { TargetNetFilter } from '../../endpoint/target-filter.ts';
import { ConfigError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Source } from '../source.ts';
import { addNat64Endpoints, parseNat64Networks } from './nat64.ts';
import { postProcess } from './post-process.ts';
import { addPtrEndpoints } from './ptr.ts';
import { filterTargets } from './target-filter.ts';
import { TransformSource } from './transform-source.ts';

export interface WrapperSettings {
  nat64Networks: readonly string[];
  targetNetFilter: readonly string[];
  excludeTargetNets: readonly string[];
  createPTR: boolean;
  /** PTR is in --managed-record-types. */
  ptrManaged: boolean;
  /** Seconds. */
  minTTL: number;
  preferAlias: boolean;
  /** `--provider`, whose provider-specific properties are the only prefixed ones kept. */
  provider: string;
}

/** The wrappers' flags out of the resolved configuration; commands without them get none. */
export function wrapperSettingsOf(cfg: Pick<Config, 'flags' | 'managedRecordTypes' | 'provider'>): WrapperSettings {
  const f = cfg.flags;
  return {
    nat64Networks: f.list('nat64-networks'),
    targetNetFilter: f.list('target-net-filter'),
    excludeTargetNets: f.list('exclude-target-net'),
    createPTR: f.bool('create-ptr'),
    ptrManaged: cfg.managedRecordTypes.includes('PTR'),
    minTTL: Math.trunc(f.num('min-ttl') / 1000),
    preferAlias: f.bool('prefer-alias'),
    provider: cfg.provider,
  };
}

export function wrapProcessing(source: Source, settings: WrapperSettings, logger: Logger): Source {
  if (settings.createPTR && !settings.ptrManaged) {
    throw new ConfigError('--create-ptr requires PTR in --managed-record-types', '--create-ptr');
  }
  let out = source;
  const nat64 = parseNat64Networks(settings.nat64Networks);
  if (nat64 !== undefined) out = new TransformSource(out, (eps) => addNat64Endpoints(eps, nat64));
  const filter = new TargetNetFilter(settings.targetNetFilter, settings.excludeTargetNets);
  if (filter.enabled) {
    const log = logger.child({ wrapper: 'target-filter' });
    out = new TransformSource(out, (eps) => filterTargets(eps, filter, log));
  }
  // Always on: the record-type property is removed even when PTR is not managed, so that it never
  // reaches a provider (which would see a property its records lack and update them every sync).
  const ptr = { createByDefault: settings.createPTR, ptrManaged: settings.ptrManaged, logger: logger.child({ wrapper: 'ptr' }) };
  out = new TransformSource(out, (eps) => addPtrEndpoints(eps, ptr));
  const options = { minTTL: settings.minTTL, preferAlias: settings.preferAlias, provider: settings.provider };
  return new TransformSource(out, (eps) => postProcess(eps, options));
}
