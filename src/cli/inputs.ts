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
import type { Endpoint } from '../endpoint/endpoint.ts';
import { endpointsFromJSON } from '../endpoint/json.ts';
import { validateEndpoint } from '../endpoint/validate.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { PlanInput } from '../plan/plan.ts';
import type { SourceProblem } from '../source/source.ts';
import { buildProvider, buildSource, registryBuilder } from './wiring.ts';

export interface LoadedInputs {
  current: Endpoint[];
  desired: Endpoint[];
  ownerId: string;
  domainFilter: DomainMatcher;
  problems: SourceProblem[];
}

export async function loadInputs(cfg: Config, logger: Logger, env?: Readonly<Record<string, string | undefined>>): Promise<LoadedInputs> {
  if (cfg.records !== '' || cfg.desired !== '') {
    const current = cfg.records === '' ? [] : (await readEndpointsFile(cfg.records, '--records')).map(normaliseRecord);
    const desired = cfg.desired === '' ? [] : (await readEndpointsFile(cfg.desired, '--desired')).map((ep, i) => validated(ep, `${cfg.desired}[${i}]`));
    return { current, desired, ownerId: cfg.txtOwnerId, domainFilter: domainFilterOf(cfg), problems: [] };
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
    const desired = await registry.adjustEndpoints(await source.endpoints());
    const current = await registry.records();
    return { current, desired, ownerId: registry.ownerId, domainFilter: new AllDomainFilters([domainFilterOf(cfg), registry.domainFilter()]), problems };
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
  };
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
