/**
 * Turns each sync's outcome into Kubernetes Events on the objects that asked for the records:
 * RecordReady when a record is in the provider as the object wants it, RecordDeleted when a record
 * it had was removed, RecordError (Warning) when the planner refused it (owned by someone else,
 * lost a conflict, forbidden by policy). Only changes of state are written, so a steady state is
 * silent however often it syncs.
 *
 * It runs after every sync, so its cost follows what changed: the desired endpoints and current
 * records are compared with the previous sync's in order (the sources and the records cache keep
 * their order), and only the names whose endpoints, records or planned changes differ are looked at
 * again. A name's outcome depends only on its own desired and current records (the planner works
 * per name), so an untouched name keeps the state written for it before.
 */
import { EndpointsByName } from '../endpoint/by-name.ts';
import { LABEL_OWNER, LABEL_RESOURCE, endpointKey, retainEndpoint, sameEndpoint } from '../endpoint/endpoint.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import type { SyncReport } from './controller.ts';
import type { Decision, ReasonCode } from '../plan/plan.ts';
import type { EventRecorder, InvolvedObject } from '../kube/events.ts';

export type RecordEventReason = 'RecordReady' | 'RecordDeleted' | 'RecordError';

/** Refusals worth telling the object's owner about; filters and unmanaged types are configuration, not errors. */
const ERROR_REASONS: ReadonlySet<ReasonCode> = new Set<ReasonCode>(['owned-by-other', 'unowned-blocks', 'conflict-lost', 'policy-forbids', 'cname-conflict']);

export interface RecordEventsOptions {
  recorder: Pick<EventRecorder, 'record'>;
  /** Which of the three reasons to write. */
  enabled: ReadonlySet<RecordEventReason>;
  /** Kind and apiVersion of the `crd` source's objects. */
  crd?: { apiVersion: string; kind: string };
}

/** `service/ns/name` or `node/name` (the resource label) → the object it names; undefined for non-Kubernetes origins. */
export function involvedObjectOf(
  resource: string,
  crd: { apiVersion: string; kind: string } = { apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'DNSEndpoint' },
): InvolvedObject | undefined {
  const [kind, namespace, ...rest] = resource.split('/');
  const name = rest.join('/');
  // Nodes are cluster-scoped: `node/<name>`.
  if (kind === 'node')
    return namespace === undefined || namespace === '' || name !== '' ? undefined : { apiVersion: 'v1', kind: 'Node', namespace: '', name: namespace };
  if (namespace === undefined || namespace === '' || name === '') return undefined;
  switch (kind) {
    case 'service':
      return { apiVersion: 'v1', kind: 'Service', namespace, name };
    case 'ingress':
      return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace, name };
    case 'crd':
      return { ...crd, namespace, name };
    case 'httproute':
      return { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', namespace, name };
    case 'grpcroute':
      return { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', namespace, name };
    case 'tlsroute':
      return { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'TLSRoute', namespace, name };
    case 'tcproute':
      return { apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'TCPRoute', namespace, name };
    case 'udproute':
      return { apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'UDPRoute', namespace, name };
    case 'route':
      return { apiVersion: 'route.openshift.io/v1', kind: 'Route', namespace, name };
    case 'HTTPProxy':
      return { apiVersion: 'projectcontour.io/v1', kind: 'HTTPProxy', namespace, name };
    case 'proxy':
      return { apiVersion: 'gloo.solo.io/v1', kind: 'Proxy', namespace, name };
    case 'pod':
      return { apiVersion: 'v1', kind: 'Pod', namespace, name };
    case 'f5-virtualserver':
      return { apiVersion: 'cis.f5.com/v1', kind: 'VirtualServer', namespace, name };
    case 'f5-transportserver':
      return { apiVersion: 'cis.f5.com/v1', kind: 'TransportServer', namespace, name };
    // Gateway API Gateways publish nothing themselves: `gateway/` records are Istio's.
    case 'gateway':
      return { apiVersion: 'networking.istio.io/v1', kind: 'Gateway', namespace, name };
    case 'virtualservice':
      return { apiVersion: 'networking.istio.io/v1', kind: 'VirtualService', namespace, name };
    // traefik-proxy: the label does not say the group; Events name the current one (traefik.io).
    case 'ingressroute':
      return { apiVersion: 'traefik.io/v1alpha1', kind: 'IngressRoute', namespace, name };
    case 'ingressroutetcp':
      return { apiVersion: 'traefik.io/v1alpha1', kind: 'IngressRouteTCP', namespace, name };
    case 'ingressrouteudp':
      return { apiVersion: 'traefik.io/v1alpha1', kind: 'IngressRouteUDP', namespace, name };
    case 'host':
      return { apiVersion: 'getambassador.io/v3alpha1', kind: 'Host', namespace, name };
    case 'tcpingress':
      return { apiVersion: 'configuration.konghq.com/v1beta1', kind: 'TCPIngress', namespace, name };
    case 'routegroup':
      return { apiVersion: 'zalando.org/v1', kind: 'RouteGroup', namespace, name };
    default:
      return undefined;
  }
}

function describe(ep: Endpoint): string {
  const id = ep.setIdentifier === '' ? '' : ` (set ${ep.setIdentifier})`;
  return `${ep.recordType} ${ep.dnsName}${id}`;
}

export interface SequenceDiff {
  /** The new sequence as kept: read-only endpoints themselves, copies of the others (unchanged ones reuse the previous copy). */
  kept: Endpoint[];
  /** Endpoints that are new in this sequence, as kept. */
  added: Endpoint[];
  /** Previous copies that are gone. */
  removed: Endpoint[];
}

/** How far a mismatch looks ahead for the point where both sequences agree again. */
const LOOKAHEAD = 64;

/**
 * Compares two sequences in order. Any result is a correct edit script (what is not matched is
 * added or removed); the look-ahead only keeps it small when a few items were inserted, removed or
 * moved to the end, which is how the sources and the records cache change between syncs. Read-only
 * (frozen) endpoints are kept as they are, since the Kubernetes sources and the records cache hold
 * them anyway; others are copied, as their owner may change them after the hook returns.
 */
export function diffEndpoints(prev: readonly Endpoint[], next: readonly Endpoint[]): SequenceDiff {
  const kept: Endpoint[] = new Array<Endpoint>(next.length);
  const added: Endpoint[] = [];
  const removed: Endpoint[] = [];
  let i = 0;
  let j = 0;
  while (i < next.length && j < prev.length) {
    const n = next[i] as Endpoint;
    const p = prev[j] as Endpoint;
    if (sameEndpoint(n, p)) {
      // The kept object, not the caller's: the by-name indexes hold it (and remove it by identity).
      kept[i++] = p;
      j++;
      continue;
    }
    let skipOld = 0;
    for (let b = 1; b <= LOOKAHEAD && j + b < prev.length; b++) {
      if (sameEndpoint(n, prev[j + b] as Endpoint)) {
        skipOld = b;
        break;
      }
    }
    if (skipOld > 0) {
      for (let b = 0; b < skipOld; b++) removed.push(prev[j + b] as Endpoint);
      j += skipOld;
      continue;
    }
    let skipNew = 0;
    for (let a = 1; a <= LOOKAHEAD && i + a < next.length; a++) {
      if (sameEndpoint(next[i + a] as Endpoint, p)) {
        skipNew = a;
        break;
      }
    }
    const changedNew = skipNew > 0 ? skipNew : 1;
    for (let a = 0; a < changedNew; a++) {
      const copy = retainEndpoint(next[i] as Endpoint);
      added.push(copy);
      kept[i++] = copy;
    }
    // Neither side realigned: count it as a replacement of one by the other.
    if (skipNew === 0) removed.push(prev[j++] as Endpoint);
  }
  for (; i < next.length; i++) {
    const copy = retainEndpoint(next[i] as Endpoint);
    added.push(copy);
    kept[i] = copy;
  }
  for (; j < prev.length; j++) removed.push(prev[j] as Endpoint);
  return { kept, added, removed };
}

/**
 * What was last written for each record set of one DNS name, five strings per entry: resource,
 * record type, set identifier, reason and detail (the targets or the refusal). Flat and made of
 * strings the endpoints already hold, because there is one of these per name for every name.
 */
type NameStates = string[];
const STRIDE = 5;

function stateAt(states: NameStates, resource: string, ep: Endpoint): number {
  for (let i = 0; i < states.length; i += STRIDE) if (states[i] === resource && states[i + 1] === ep.recordType && states[i + 2] === ep.setIdentifier) return i;
  return -1;
}

/** The record of the same set, the last one when a provider lists it twice. */
function recordFor(records: readonly Endpoint[] | undefined, ep: Endpoint): Endpoint | undefined {
  if (records === undefined) return undefined;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i] as Endpoint;
    if (r.recordType === ep.recordType && r.setIdentifier === ep.setIdentifier) return r;
  }
  return undefined;
}

export class RecordEventReporter {
  private readonly opts: RecordEventsOptions;
  /** The previous sync's desired endpoints and current records (shared when read-only, else copies). */
  private desired: Endpoint[] = [];
  private current: Endpoint[] = [];
  /** The same objects by DNS name, kept in step with the two lists. */
  private readonly desiredByName = new EndpointsByName();
  private readonly currentByName = new EndpointsByName();
  private readonly last = new Map<string, NameStates>();
  /** Names in the previous sync's changes, looked at once more when the change is visible. */
  private lastChangeNames: ReadonlySet<string> = new Set();

  constructor(opts: RecordEventsOptions) {
    this.opts = opts;
  }

  onSynced(report: SyncReport): void {
    const dirty = new Set<string>(this.lastChangeNames);
    const changeNames = new Set<string>();
    const { changes } = report;
    for (const list of [changes.create, changes.updateOld, changes.updateNew, changes.delete]) for (const ep of list) changeNames.add(ep.dnsName);
    for (const n of changeNames) dirty.add(n);
    this.lastChangeNames = changeNames;

    const d = diffEndpoints(this.desired, report.desired);
    this.desired = d.kept;
    for (const ep of d.removed) {
      dirty.add(ep.dnsName);
      this.desiredByName.remove(ep);
    }
    for (const ep of d.added) {
      dirty.add(ep.dnsName);
      this.desiredByName.add(ep);
    }
    const c = diffEndpoints(this.current, report.current);
    this.current = c.kept;
    for (const ep of c.removed) {
      dirty.add(ep.dnsName);
      this.currentByName.remove(ep);
    }
    for (const ep of c.added) {
      dirty.add(ep.dnsName);
      this.currentByName.add(ep);
    }

    if (dirty.size > 0) this.review(report, dirty);
  }

  /** Works out the state of every desired record set at the given names and writes what changed. */
  private review(report: SyncReport, names: ReadonlySet<string>): void {
    const { changes } = report;
    const changed = new Map<string, Endpoint>();
    if (report.applied) for (const ep of [...changes.create, ...changes.updateNew]) changed.set(endpointKey(ep), ep);
    const pending = new Set([...changes.create, ...changes.updateNew].map(endpointKey));
    const states = new Map<string, NameStates>();
    const unresolved: Endpoint[] = [];
    for (const name of names) {
      const now: NameStates = [];
      states.set(name, now);
      this.reviewName(name, now, report, { changed, pending }, unresolved);
    }
    if (unresolved.length > 0) this.reportErrors(unresolved, report, states);
    if (report.applied) this.reportDeletes(changes.delete, states);
    for (const [name, now] of states) {
      if (now.length === 0) this.last.delete(name);
      // A copy of exactly the entries' size: `now` grew by push, with room for a dozen more strings.
      else this.last.set(name, now.slice());
    }
  }

  /** Ready events for one name's desired record sets that are written; the others are unresolved. */
  private reviewName(
    name: string,
    now: NameStates,
    report: SyncReport,
    sync: { changed: ReadonlyMap<string, Endpoint>; pending: ReadonlySet<string> },
    unresolved: Endpoint[],
  ): void {
    const before = this.last.get(name);
    const records = this.currentByName.at(name);
    for (const ep of this.desiredByName.at(name)) {
      const resource = ep.labels[LABEL_RESOURCE] ?? '';
      if (resource === '') continue;
      // Record sets still desired keep what was written for them; the others are forgotten.
      if (stateAt(now, resource, ep) < 0) {
        const at = before === undefined ? -1 : stateAt(before, resource, ep);
        if (before !== undefined && at >= 0) now.push(...before.slice(at, at + STRIDE));
        else now.push(resource, ep.recordType, ep.setIdentifier, '', '');
      }
      const done = sync.changed.size === 0 ? undefined : sync.changed.get(endpointKey(ep));
      const cur = recordFor(records, ep);
      const ours = cur !== undefined && (report.ownerId === '' || cur.labels[LABEL_OWNER] === report.ownerId);
      if (done !== undefined && (done.labels[LABEL_RESOURCE] ?? resource) === resource) {
        this.emit(now, resource, ep, 'RecordReady', ep.targets, () => `${describe(ep)} → ${ep.targets.join(', ')}`);
      } else if (ours && (sync.pending.size === 0 || !sync.pending.has(endpointKey(ep))) && (cur.labels[LABEL_RESOURCE] ?? resource) === resource) {
        this.emit(now, resource, ep, 'RecordReady', cur.targets, () => `${describe(ep)} → ${cur.targets.join(', ')}`);
      } else {
        unresolved.push(ep);
      }
    }
  }

  /** One extra plan, limited to the names that changed and have no record of their own: why each is not published. */
  private reportErrors(unresolved: readonly Endpoint[], report: SyncReport, states: ReadonlyMap<string, NameStates>): void {
    const byName = new Map<string, Decision[]>();
    for (const x of report.explain(new Set(unresolved.map((ep) => ep.dnsName)))) {
      if (x.action !== 'skip' || !ERROR_REASONS.has(x.reasonCode)) continue;
      const list = byName.get(x.dnsName);
      if (list === undefined) byName.set(x.dnsName, [x]);
      else list.push(x);
    }
    for (const ep of unresolved) {
      const resource = ep.labels[LABEL_RESOURCE] ?? '';
      const dec = byName
        .get(ep.dnsName)
        ?.find((x) => x.recordType === ep.recordType && x.setIdentifier === ep.setIdentifier && (x.resource === undefined || x.resource === resource));
      const now = states.get(ep.dnsName);
      if (dec !== undefined && now !== undefined)
        this.emit(now, resource, ep, 'RecordError', [dec.reason], () => `${describe(ep)} not published: ${dec.reason}`);
    }
  }

  private reportDeletes(deleted: readonly Endpoint[], states: ReadonlyMap<string, NameStates>): void {
    for (const ep of deleted) {
      const resource = ep.labels[LABEL_RESOURCE] ?? '';
      if (resource === '') continue;
      // Still desired by the same object: not a deletion to report.
      const now = states.get(ep.dnsName);
      if (now !== undefined && stateAt(now, resource, ep) >= 0) continue;
      this.write(resource, 'RecordDeleted', `${describe(ep)} deleted`);
    }
  }

  private emit(states: NameStates, resource: string, ep: Endpoint, reason: RecordEventReason, detail: readonly string[], note: () => string): void {
    const at = stateAt(states, resource, ep);
    // One target (the usual case) is compared as the string the endpoint holds: nothing is built.
    const value = detail.length === 1 ? (detail[0] ?? '') : detail.join(',');
    if (states[at + 3] === reason && states[at + 4] === value) return;
    states[at + 3] = reason;
    states[at + 4] = value;
    this.write(resource, reason, note());
  }

  private write(resource: string, reason: RecordEventReason, note: string): void {
    if (!this.opts.enabled.has(reason)) return;
    const obj = involvedObjectOf(resource, this.opts.crd);
    if (obj === undefined) return;
    this.opts.recorder.record(obj, reason === 'RecordError' ? 'Warning' : 'Normal', reason, note);
  }
}
