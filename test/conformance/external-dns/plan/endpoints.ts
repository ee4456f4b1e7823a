/**
 * Shared by the external-dns planner and registry replays: endpoints written in the case files
 * (inline, by fixture name, or a fixture with fields replaced), and the comparison upstream's
 * tests use (internal/testutils.SameEndpoints), so both runners judge a case alike.
 */
import { readFile } from 'node:fs/promises';
import { canonicalTarget, newEndpoint, sameProviderSpecific } from '../../../../src/endpoint/endpoint.ts';
import type { Endpoint, ProviderSpecificProperty, RecordType } from '../../../../src/endpoint/endpoint.ts';

export interface EndpointData {
  dnsName: string;
  targets?: string[];
  recordType?: string;
  setIdentifier?: string;
  recordTTL?: number;
  labels?: Record<string, string>;
  providerSpecific?: ProviderSpecificProperty[];
}

/** A fixture name, an inline endpoint, or `{ref, ...fields}`: the fixture with those fields replaced. */
export type EndpointRef = string | (Partial<EndpointData> & { ref?: string });

export interface CaseFile<C> {
  upstream: string;
  notes?: string[];
  fixtures?: Record<string, EndpointData>;
  cases: C[];
}

export interface BaseCase {
  name: string;
  upstreamTest: string;
  differs?: string;
}

export async function readCases<C extends BaseCase>(url: URL): Promise<CaseFile<C>> {
  return JSON.parse(await readFile(url, 'utf8')) as CaseFile<C>;
}

export function resolver(fixtures: Record<string, EndpointData> = {}): (ref: EndpointRef) => Endpoint {
  return (ref) => {
    let data: EndpointData;
    if (typeof ref === 'string') {
      const f = fixtures[ref];
      if (f === undefined) throw new Error(`no fixture ${ref}`);
      data = f;
    } else {
      const { ref: name, ...fields } = ref;
      const base = name === undefined ? undefined : fixtures[name];
      if (name !== undefined && base === undefined) throw new Error(`no fixture ${name}`);
      data = { ...(base ?? { dnsName: '' }), ...fields } as EndpointData;
    }
    return newEndpoint({
      dnsName: data.dnsName,
      targets: data.targets ?? [],
      recordType: (data.recordType ?? 'A') as RecordType,
      setIdentifier: data.setIdentifier ?? '',
      recordTTL: data.recordTTL ?? 0,
      labels: data.labels ?? {},
      providerSpecific: data.providerSpecific ?? [],
    });
  };
}

/** Upstream's Targets.Same: same length, equal after sorting, letter case and IPv6 spelling ignored. */
function sameTargetSet(recordType: RecordType, a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const ca = a.map((t) => canonicalTarget(recordType, t).toLowerCase()).sort();
  const cb = b.map((t) => canonicalTarget(recordType, t).toLowerCase()).sort();
  return ca.every((t, i) => t === cb[i]);
}

const COMPARED_LABELS = ['owner', 'resource', 'ownedRecord'] as const;

/** Upstream's SameEndpoint: names compared exactly, the owner, resource and ownedRecord labels only. */
export function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  return (
    a.dnsName === b.dnsName &&
    a.recordType === b.recordType &&
    a.setIdentifier === b.setIdentifier &&
    a.recordTTL === b.recordTTL &&
    sameTargetSet(a.recordType, a.targets, b.targets) &&
    COMPARED_LABELS.every((k) => (a.labels[k] ?? '') === (b.labels[k] ?? '')) &&
    sameProviderSpecific(a.providerSpecific, b.providerSpecific)
  );
}

/** Order-insensitive, with multiplicity (upstream's SameEndpoints). */
export function sameEndpoints(got: readonly Endpoint[], want: readonly Endpoint[]): boolean {
  if (got.length !== want.length) return false;
  const left = [...want];
  for (const g of got) {
    const i = left.findIndex((w) => sameEndpoint(g, w));
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

export function showEndpoints(list: readonly Endpoint[]): string {
  return JSON.stringify(
    list.map((e) => ({
      dnsName: e.dnsName,
      recordType: e.recordType,
      targets: e.targets,
      ...(e.setIdentifier === '' ? {} : { setIdentifier: e.setIdentifier }),
      ...(e.recordTTL === 0 ? {} : { recordTTL: e.recordTTL }),
      ...(Object.keys(e.labels).length === 0 ? {} : { labels: e.labels }),
      ...(e.providerSpecific.length === 0 ? {} : { providerSpecific: e.providerSpecific }),
    })),
  );
}
