/**
 * What `plan` and `explain` plan from: either two JSON files (current records and desired
 * endpoints) or the configured sources and provider, read once and never written to.
 */
import { readFile } from 'node:fs/promises';
import { Registry as MetricsRegistry } from 'prom-client';
import type { Config } from '../config/config.ts';
import { domainFilterOf } from '../config/config.ts';
import { AllDomainFilters } from '../endpoint/domain-filter.ts';
import type { DomainMatcher } from '../endpoint/domain-filter.ts';
import { LABEL_OWNER } from '../endpoint/endpoint.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import { endpointsFromJSON } from '../endpoint/json.ts';
import { validateEndpoint } from '../endpoint/validate.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { PlanInput } from '../plan/plan.ts';
import { parseLabels } from '../registry/txt/labels.ts';
import type { SourceProblem } from '../source/source.ts';
import { buildProvider, buildSource, registryBuilder } from './wiring.ts';

export interface LoadedInputs {
  current: Endpoint[];
  desired: Endpoint[];
  ownerId: string;
  domainFilter: DomainMatcher;
  problems: SourceProblem[];
  /** Resources the sources could not translate: their records are neither updated nor deleted. */
  heldResources?: ReadonlySet<string>;
  /** Sentences about the input files worth a warning (today: raw ownership TXT records in --records). */
  warnings: string[];
}

export async function loadInputs(cfg: Config, logger: Logger, env?: Readonly<Record<string, string | undefined>>): Promise<LoadedInputs> {
  if (cfg.records !== '' || cfg.desired !== '') {
    const current = cfg.records === '' ? [] : (await readEndpointsFile(cfg.records, '--records')).map(normaliseRecord);
    const desired = cfg.desired === '' ? [] : (await readEndpointsFile(cfg.desired, '--desired')).map((ep, i) => validated(ep, `${cfg.desired}[${i}]`));
    const warning = cfg.records === '' ? undefined : rawOwnershipWarning(cfg.records, current, cfg.txtOwnerId);
    return { current, desired, ownerId: cfg.txtOwnerId, domainFilter: domainFilterOf(cfg), problems: [], warnings: warning === undefined ? [] : [warning] };
  }
  const problems: SourceProblem[] = [];
  const deps = {
    logger,
    metrics: new MetricsRegistry(),
    watch: false,
    readOnly: true,
    onProblem: (p: SourceProblem) => problems.push(p),
    ...(env === undefined ? {} : { env }),
  };
  const buildRegistry = registryBuilder(cfg, deps);
  const provider = await buildProvider(cfg, deps);
  const source = await buildSource(cfg, deps);
  try {
    const registry = buildRegistry(provider);
    const endpoints = await source.endpoints();
    const heldResources = source.heldResources?.() ?? new Set<string>();
    const desired = await registry.adjustEndpoints(endpoints);
    const current = await registry.records();
    return {
      current,
      desired,
      heldResources,
      ownerId: registry.ownerId,
      domainFilter: new AllDomainFilters([domainFilterOf(cfg), registry.domainFilter()]),
      problems,
      warnings: [],
    };
  } finally {
    await source.close?.();
    await provider.close?.();
  }
}

export function planInputOf(cfg: Config, inputs: LoadedInputs, explainNames?: ReadonlySet<string>): PlanInput {
  return {
    current: inputs.current,
    desired: inputs.desired,
    ownerId: inputs.ownerId,
    policy: cfg.policy,
    managedRecordTypes: cfg.managedRecordTypes,
    excludeRecordTypes: cfg.excludeRecordTypes,
    domainFilter: inputs.domainFilter,
    ...(cfg.migrateFromTxtOwner === '' ? {} : { migrateFromOwner: cfg.migrateFromTxtOwner }),
    ...(explainNames === undefined ? {} : { explainNames }),
    ...(inputs.heldResources === undefined || inputs.heldResources.size === 0 ? {} : { heldResources: inputs.heldResources }),
  };
}

/**
 * A --records file dumped straight from a zone holds external-dns's ownership TXT records and no
 * owner labels: the planner then sees every record as unowned and plans nothing, which reads as
 * "No changes". That file is almost always a mistake, so say what --records expects instead.
 */
export function rawOwnershipWarning(file: string, current: readonly Endpoint[], ownerId: string): string | undefined {
  let ownershipTXT = 0;
  for (const ep of current) {
    if (ep.recordType !== 'TXT') {
      if ((ep.labels[LABEL_OWNER] ?? '') !== '') return undefined;
    } else if (ep.targets.length > 0 && parseLabels(ep.targets[0] ?? '') !== undefined) {
      ownershipTXT++;
    }
  }
  if (ownershipTXT === 0) return undefined;
  const owner = ownerId === '' ? '<your --txt-owner-id>' : ownerId;
  return (
    `--records ${file} holds ${ownershipTXT} ownership TXT record${ownershipTXT === 1 ? '' : 's'} (heritage=external-dns) but none of its records carries an owner label, ` +
    'so every record counts as unowned and no change to them can be planned. --records takes records as the TXT registry reports them: ' +
    `each record's owner in "labels": {"owner": "${owner}"} and the ownership TXT records left out. ` +
    'Let the registry read the TXT records instead: run plan without --records/--desired against the provider and source ' +
    '(--provider …, --source …, --txt-owner-id, --txt-prefix/--txt-suffix as the deployment uses them), or add the owner labels to the file.'
  );
}

function normaliseRecord(ep: Endpoint): Endpoint {
  const lower = ep.dnsName.toLowerCase();
  return { ...ep, dnsName: lower.endsWith('.') ? lower.slice(0, -1) : lower };
}

function validated(ep: Endpoint, where: string): Endpoint {
  try {
    return validateEndpoint(ep);
  } catch (err) {
    throw new ConfigError(`--desired ${where}: ${errorMessage(err)}`, '--desired');
  }
}

async function readEndpointsFile(file: string, flag: string): Promise<Endpoint[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${flag} ${file}: cannot read: ${errorMessage(err)}`, flag);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${flag} ${file}: not valid JSON: ${errorMessage(err)}`, flag);
  }
  try {
    return endpointsFromJSON(parsed, file);
  } catch (err) {
    throw new ConfigError(`${flag} ${errorMessage(err)}`, flag);
  }
}
