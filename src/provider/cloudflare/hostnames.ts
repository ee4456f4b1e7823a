/**
 * Custom hostnames (Cloudflare for SaaS) and regional hostnames (Data Localization Suite), changed
 * alongside the records as external-dns changes them: only for A and CNAME records (custom) and
 * A, AAAA and CNAME records (regional); a custom hostname whose origin is another name is an error,
 * not taken over; a regional hostname goes when the last record of its name goes.
 */
import { getProviderSpecific } from '../../endpoint/endpoint.ts';
import type { ProviderError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { partFailure } from '../failures.ts';
import { PROVIDER_NAME } from './api.ts';
import type { CfCustomHostname, CfCustomHostnameInput, CfRegionalHostname, CloudflareApi } from './api.ts';
import { REGIONAL_TYPES } from './adjust.ts';
import type { RecordChange } from './changes.ts';
import type { PropertyNames } from './convert.ts';

const CUSTOM_TYPES: ReadonlySet<string> = new Set(['A', 'CNAME']);

export interface CustomHostnameSettings {
  enabled: boolean;
  minTlsVersion: string;
  certificateAuthority: string;
}

export interface HostnameWrite {
  api: CloudflareApi;
  zoneId: string;
  zoneName: string;
  names: PropertyNames;
  logger: Logger;
}

/** The zone's custom or regional hostnames, kept current with our own writes (the provider's cache). */
export interface HostnameState<T> {
  list: T[];
}

function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

export function customHostnameInput(hostname: string, origin: string, s: CustomHostnameSettings): CfCustomHostnameInput {
  return {
    hostname,
    customOriginServer: origin,
    ssl: {
      type: 'dv',
      method: 'http',
      bundleMethod: 'ubiquitous',
      ...(s.certificateAuthority === 'none' || s.certificateAuthority === '' ? {} : { certificateAuthority: s.certificateAuthority }),
      ...(s.minTlsVersion === '' ? {} : { minTlsVersion: s.minTlsVersion }),
    },
  };
}

/** Custom hostname changes of one zone's record changes; once per endpoint, not once per target. */
export async function writeCustomHostnames(
  w: HostnameWrite,
  changes: readonly RecordChange[],
  state: HostnameState<CfCustomHostname>,
  s: CustomHostnameSettings,
): Promise<ProviderError[]> {
  const byName = new Map(state.list.map((c) => [c.hostname, c]));
  const failures: ProviderError[] = [];
  const seen = new Set<string>();
  const attempt = async (what: string, f: () => Promise<void>): Promise<void> => {
    try {
      await f();
    } catch (err) {
      failures.push(partFailure(PROVIDER_NAME, w.zoneName, what, err));
    }
  };
  const remove = async (hostname: string): Promise<void> => {
    const ch = byName.get(hostname);
    if (ch === undefined) return;
    await attempt(`delete custom hostname ${hostname}`, async () => {
      await w.api.deleteCustomHostname(w.zoneId, ch.id);
      byName.delete(hostname);
      state.list = state.list.filter((c) => c.id !== ch.id);
    });
  };
  for (const c of changes) {
    const key = `${c.action}\u0000${c.ep.dnsName}\u0000${c.ep.recordType}`;
    if (!CUSTOM_TYPES.has(c.ep.recordType) || seen.has(key)) continue;
    seen.add(key);
    const wanted = listOf(getProviderSpecific(c.ep, w.names.customHostname));
    if (c.action === 'delete') {
      for (const h of wanted) await remove(h);
      continue;
    }
    const before = c.action === 'update' && c.previous !== undefined ? listOf(getProviderSpecific(c.previous, w.names.customHostname)) : [];
    for (const h of before) if (!wanted.includes(h)) await remove(h);
    for (const h of wanted) {
      if (before.includes(h) && c.action === 'update') continue;
      const have = byName.get(h);
      if (have !== undefined) {
        if (have.customOriginServer !== c.ep.dnsName)
          failures.push(partFailure(PROVIDER_NAME, w.zoneName, `custom hostname ${h}`, new Error(`already exists with origin ${have.customOriginServer}`)));
        continue;
      }
      await attempt(`create custom hostname ${h}`, async () => {
        const made = await w.api.createCustomHostname(w.zoneId, customHostnameInput(h, c.ep.dnsName, s));
        byName.set(h, made);
        state.list = [...state.list, made];
      });
    }
  }
  return failures;
}

/** The regional hostname each changed name should have ('' for none), as external-dns's desiredRegionalHostnames. */
export function desiredRegionalHostnames(changes: readonly RecordChange[], names: PropertyNames, defaultKey: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of changes) {
    if (!REGIONAL_TYPES.has(c.ep.recordType)) continue;
    const name = c.ep.dnsName;
    const key = c.action === 'delete' ? '' : (getProviderSpecific(c.ep, names.regionKey) ?? defaultKey);
    const have = out.get(name);
    if (have === undefined || have === '') out.set(name, key);
    else if (key !== '' && key !== have) throw new Error(`conflicting region keys for regional hostname ${name}: ${have} and ${key}`);
  }
  return out;
}

export async function writeRegionalHostnames(
  w: HostnameWrite,
  desired: ReadonlyMap<string, string>,
  state: HostnameState<CfRegionalHostname>,
): Promise<ProviderError[]> {
  const current = new Map(state.list.map((r) => [r.hostname, r.regionKey]));
  const failures: ProviderError[] = [];
  for (const [hostname, regionKey] of desired) {
    const have = current.get(hostname);
    let op: (() => Promise<void>) | undefined;
    if (regionKey === '') op = have === undefined ? undefined : () => w.api.deleteRegionalHostname(w.zoneId, hostname);
    else if (have === undefined) op = () => w.api.createRegionalHostname(w.zoneId, { hostname, regionKey });
    else if (have !== regionKey) op = () => w.api.updateRegionalHostname(w.zoneId, { hostname, regionKey });
    if (op === undefined) continue;
    try {
      await op();
      state.list = [...state.list.filter((r) => r.hostname !== hostname), ...(regionKey === '' ? [] : [{ hostname, regionKey }])];
      w.logger.info({ zone: w.zoneName, hostname, regionKey }, 'Cloudflare regional hostname changed');
    } catch (err) {
      failures.push(partFailure(PROVIDER_NAME, w.zoneName, `regional hostname ${hostname}`, err));
    }
  }
  return failures;
}
