/**
 * Step 7: a private hosted zone named after the cluster's API host (from the admin kubeconfig),
 * in the endpoint's VPC, whose apex A record leads to the endpoint: an alias to its first DNS
 * name, or (ARecord mode) the endpoint interfaces' private addresses with a short TTL.
 */
import { randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import type { Logger } from '../../log.ts';
import type { RecordSet, Route53Port, Vpc, VpcEndpoint } from '../aws/ports.ts';

export const AREC_TTL = 10;

/** The API host (`api.cluster.example.com`) of the kubeconfig's current cluster, else its only one. */
export function apiHostFromKubeconfig(text: string): string {
  const doc = parse(text) as {
    'current-context'?: string;
    contexts?: { name?: string; context?: { cluster?: string } }[];
    clusters?: { name?: string; cluster?: { server?: string } }[];
  } | null;
  const clusters = doc?.clusters ?? [];
  const ctx = doc?.contexts?.find((c) => c.name === doc['current-context']);
  const cluster = clusters.find((c) => c.name === ctx?.context?.cluster) ?? (clusters.length === 1 ? clusters[0] : undefined);
  const server = cluster?.cluster?.server;
  if (server === undefined || server === '') throw new Error('the admin kubeconfig names no cluster server');
  const host = new URL(server).hostname.toLowerCase().replace(/\.$/, '');
  if (host === '' || /^[\d.]+$/.test(host) || host.startsWith('[')) throw new Error(`the admin kubeconfig server ${server} is not a DNS name`);
  return host;
}

/**
 * The API host from the admin kubeconfig Secret's data. `raw-kubeconfig` wins over `kubeconfig`
 * (as in Hive): the installer's original names the cluster's own API host, while `kubeconfig`
 * may have been rewritten to a vanity domain the private zone must not be named after.
 */
export function apiHostFromSecret(data: Readonly<Record<string, string>> | undefined, secretName: string): string {
  // Hive's wording: the Kubernetes client's NotFound, and its kubeconfig loader's error wrapped.
  if (data === undefined) throw new Error(`secrets "${secretName}" not found`);
  const text = nonEmpty(data['raw-kubeconfig']) ?? nonEmpty(data['kubeconfig']);
  if (text === undefined) throw new Error('failed to load the kubeconfig: kubeconfig secret does not contain necessary data');
  return apiHostFromKubeconfig(text);
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}

export function desiredRecord(host: string, mode: 'Alias' | 'ARecord', endpoint: VpcEndpoint, ips: readonly string[]): RecordSet {
  if (mode === 'ARecord') {
    if (ips.length === 0) throw new Error(`VPC endpoint ${endpoint.id} has no network interface addresses yet`);
    return { name: host, type: 'A', ttl: AREC_TTL, values: [...ips].sort(compareIps) };
  }
  const entry = endpoint.dnsEntries[0];
  if (entry === undefined) throw new Error(`VPC endpoint ${endpoint.id} has no DNS entries yet`);
  return { name: host, type: 'A', alias: { hostedZoneId: entry.hostedZoneId, dnsName: entry.dnsName, evaluateTargetHealth: false } };
}

function compareIps(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 4; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return a.localeCompare(b);
}

/**
 * The zone to use: the one recorded in status when it still exists with that name, else one
 * found by name (preferring one already in `vpc`), else a new one.
 */
export async function ensurePrivateZone(r53: Route53Port, input: { host: string; vpc: Vpc; knownZoneId: string | undefined }, log: Logger): Promise<string> {
  const found = await r53.findPrivateZones(input.host);
  if (input.knownZoneId !== undefined && found.includes(input.knownZoneId)) return input.knownZoneId;
  if (found.length > 1) {
    for (const id of found) {
      if ((await r53.zoneVpcs(id)).some((v) => v.vpcId === input.vpc.vpcId)) return id;
    }
    log.warn({ host: input.host, zones: found }, 'several private zones have the API name; using the first');
  }
  if (found[0] !== undefined) return found[0];
  const id = await r53.createPrivateZone(input.host, input.vpc, `hostwarden-${randomBytes(8).toString('hex')}`);
  log.info({ zone: id, host: input.host }, 'created private hosted zone');
  return id;
}

/** UPSERTs the record unless it already reads the same. */
export async function ensureRecord(r53: Route53Port, zoneId: string, record: RecordSet): Promise<boolean> {
  const current = (await r53.listRecords(zoneId)).find((r) => r.type === 'A' && sameName(r.name, record.name));
  if (current !== undefined && sameRecord(current, record)) return false;
  await r53.upsertRecord(zoneId, record);
  return true;
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');
}

function sameRecord(a: RecordSet, b: RecordSet): boolean {
  if (b.alias !== undefined) {
    return (
      a.alias !== undefined &&
      a.values === undefined &&
      sameName(a.alias.dnsName, b.alias.dnsName) &&
      a.alias.hostedZoneId === b.alias.hostedZoneId &&
      a.alias.evaluateTargetHealth === b.alias.evaluateTargetHealth
    );
  }
  return a.alias === undefined && a.ttl === b.ttl && JSON.stringify([...(a.values ?? [])].sort(compareIps)) === JSON.stringify(b.values);
}
