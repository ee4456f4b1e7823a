/**
 * Turning "these names point at these targets" into endpoints, and the final validation step every
 * translated endpoint goes through so a bad name or target costs only that endpoint.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { LABEL_RESOURCE, describeEndpoint, newEndpoint } from '../../endpoint/endpoint.ts';
import { normalizeDnsName } from '../../endpoint/name.ts';
import { InvalidEndpointError } from '../../errors.ts';
import type { Endpoint, ProviderSpecificProperty, RecordType } from '../../endpoint/endpoint.ts';
import { validateEndpoint } from '../../endpoint/validate.ts';
import { describeRef } from '../source.ts';
import type { ObjectRef, SourceProblem } from '../source.ts';

const FILLABLE: ReadonlySet<RecordType> = new Set<RecordType>(['A', 'AAAA', 'CNAME']);

function checkedName(ep: Endpoint): string {
  try {
    return normalizeDnsName(ep.dnsName);
  } catch (err) {
    throw new InvalidEndpointError(`${describeEndpoint(ep)}: ${(err as Error).message}`);
  }
}

export interface EndpointCommon {
  ttl: number;
  setIdentifier: string;
  providerSpecific: readonly ProviderSpecificProperty[];
  /** Value of the `resource` label, e.g. `service/default/web`; omitted when empty. */
  resource: string;
}

/** IPv4 → A, IPv6 → AAAA, anything else is a hostname → CNAME. */
export function suitableType(target: string): RecordType {
  if (isIPv4(target)) return 'A';
  if (isIPv6(target)) return 'AAAA';
  return 'CNAME';
}

/**
 * One A endpoint with every IPv4 target, one AAAA with every IPv6 target, and one CNAME per
 * hostname target: a CNAME can hold a single target, so several load-balancer hostnames become
 * competing CNAMEs that the planner's conflict resolution chooses between.
 */
export function endpointsForHostname(hostname: string, targets: readonly string[], common: EndpointCommon): Endpoint[] {
  const a: string[] = [];
  const aaaa: string[] = [];
  const cnames: string[] = [];
  for (const target of targets) {
    const type = suitableType(target);
    if (type === 'A') a.push(target);
    else if (type === 'AAAA') aaaa.push(target);
    else if (!cnames.includes(target)) cnames.push(target);
  }
  const make = (recordType: RecordType, ts: string[]): Endpoint =>
    newEndpoint({
      dnsName: hostname,
      targets: ts,
      recordType,
      setIdentifier: common.setIdentifier,
      recordTTL: common.ttl,
      labels: common.resource === '' ? {} : { [LABEL_RESOURCE]: common.resource },
      providerSpecific: common.providerSpecific,
    });
  const out: Endpoint[] = [];
  if (a.length > 0) out.push(make('A', a));
  if (aaaa.length > 0) out.push(make('AAAA', aaaa));
  for (const c of cnames) out.push(make('CNAME', [c]));
  return out;
}

/** Names in first-seen order without repeats, comparing case-insensitively and ignoring a trailing dot. */
export function uniqueHostnames(names: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const name of names) {
    const key = name.toLowerCase().replace(/\.$/, '');
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(name);
  }
  return out;
}

export function problemFor(ref: ObjectRef, message: string): SourceProblem {
  const problem: SourceProblem = { ref, message: `${describeRef(ref)}: ${message}` };
  if (ref.file !== undefined) problem.file = ref.file;
  if (ref.line !== undefined) problem.line = ref.line;
  return problem;
}

/**
 * Validates and normalises each endpoint; invalid ones become problems naming the object, and
 * exact repeats (same name, type, set identifier and targets) are dropped. With
 * `allowEmptyTargets`, A/AAAA/CNAME endpoints without targets keep only a name check, for
 * `--default-targets` to fill in later.
 */
export function finalizeEndpoints(ref: ObjectRef, candidates: readonly Endpoint[], problems: SourceProblem[], allowEmptyTargets = false): Endpoint[] {
  const out: Endpoint[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    let ep: Endpoint;
    try {
      const fillLater = allowEmptyTargets && candidate.targets.length === 0 && FILLABLE.has(candidate.recordType);
      ep = fillLater ? newEndpoint({ ...candidate, dnsName: checkedName(candidate) }) : validateEndpoint(candidate);
    } catch (err) {
      problems.push({ ...problemFor(ref, `skipped: ${(err as Error).message}`), recordType: candidate.recordType });
      continue;
    }
    const key = JSON.stringify([ep.dnsName, ep.recordType, ep.setIdentifier, [...ep.targets].sort()]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(ep);
  }
  return out;
}
