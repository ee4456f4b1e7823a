/**
 * Turns each sync's outcome into Kubernetes Events on the objects that asked for the records:
 * RecordReady when a record is in the provider as the object wants it, RecordDeleted when a record
 * it had was removed, RecordError (Warning) when the planner refused it (owned by someone else,
 * lost a conflict, forbidden by policy). Only changes of state are written, so a steady state is
 * silent however often it syncs.
 */
import { LABEL_OWNER, LABEL_RESOURCE, endpointKey } from '../endpoint/endpoint.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import type { SyncReport } from '../controller/controller.ts';
import type { ReasonCode } from '../plan/plan.ts';
import type { EventRecorder, InvolvedObject } from './events.ts';

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

/** `service/ns/name` (the resource label) → the object it names; undefined for non-Kubernetes origins. */
export function involvedObjectOf(resource: string, crd: { apiVersion: string; kind: string } = { apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'DNSEndpoint' }): InvolvedObject | undefined {
  const [kind, namespace, ...rest] = resource.split('/');
  const name = rest.join('/');
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
    default:
      return undefined;
  }
}

function describe(ep: Endpoint): string {
  const id = ep.setIdentifier === '' ? '' : ` (set ${ep.setIdentifier})`;
  return `${ep.recordType} ${ep.dnsName}${id}`;
}

interface Written {
  /** Reason and targets: what decides whether a new event is due. */
  state: string;
  /** The sync that last saw this record set desired, so stale entries can be dropped cheaply. */
  round: number;
}

export class RecordEventReporter {
  private readonly opts: RecordEventsOptions;
  /** Last state written per (resource, record set). */
  private readonly last = new Map<string, Written>();
  private round = 0;

  constructor(opts: RecordEventsOptions) {
    this.opts = opts;
  }

  onSynced(report: SyncReport): void {
    // Runs after every sync over every desired endpoint: it must cost little when nothing changed,
    // so notes are only built when an event is actually written.
    const round = ++this.round;
    const changed = new Map<string, Endpoint>();
    if (report.applied) for (const ep of [...report.changes.create, ...report.changes.updateNew]) changed.set(endpointKey(ep), ep);
    const pending = new Set([...report.changes.create, ...report.changes.updateNew].map(endpointKey));
    const current = new Map<string, Endpoint>();
    for (const ep of report.current) current.set(endpointKey(ep), ep);

    const unresolved: Endpoint[] = [];
    for (const ep of report.desired) {
      const resource = ep.labels[LABEL_RESOURCE] ?? '';
      if (resource === '') continue;
      const key = `${resource}\u0001${endpointKey(ep)}`;
      const seen = this.last.get(key);
      if (seen !== undefined) seen.round = round;
      const done = changed.get(endpointKey(ep));
      const cur = current.get(endpointKey(ep));
      const ours = cur !== undefined && (report.ownerId === '' || cur.labels[LABEL_OWNER] === report.ownerId);
      if (done !== undefined && (done.labels[LABEL_RESOURCE] ?? resource) === resource) {
        this.emit(resource, key, round, 'RecordReady', ep.targets, () => `${describe(ep)} → ${ep.targets.join(', ')}`);
      } else if (ours && !pending.has(endpointKey(ep)) && (cur.labels[LABEL_RESOURCE] ?? resource) === resource) {
        this.emit(resource, key, round, 'RecordReady', cur.targets, () => `${describe(ep)} → ${cur.targets.join(', ')}`);
      } else {
        unresolved.push(ep);
      }
    }

    if (unresolved.length > 0) {
      const decisions = report.explain(new Set(unresolved.map((ep) => ep.dnsName)));
      for (const ep of unresolved) {
        const resource = ep.labels[LABEL_RESOURCE] ?? '';
        const d = decisions.find(
          (x) => x.action === 'skip' && ERROR_REASONS.has(x.reasonCode) && x.dnsName === ep.dnsName && x.recordType === ep.recordType && x.setIdentifier === ep.setIdentifier && (x.resource === undefined || x.resource === resource),
        );
        if (d !== undefined) this.emit(resource, `${resource}\u0001${endpointKey(ep)}`, round, 'RecordError', [d.reason], () => `${describe(ep)} not published: ${d.reason}`);
      }
    }

    if (report.applied) {
      for (const ep of report.changes.delete) {
        const resource = ep.labels[LABEL_RESOURCE] ?? '';
        if (resource === '') continue;
        const key = `${resource}\u0001${endpointKey(ep)}`;
        if (this.last.get(key)?.round === round) continue;
        this.last.delete(key);
        this.write(resource, 'RecordDeleted', `${describe(ep)} deleted`);
      }
    }
    // Forget record sets no object asks for any more, so the map tracks only live ones.
    for (const [k, w] of this.last) if (w.round !== round) this.last.delete(k);
  }

  private emit(resource: string, key: string, round: number, reason: RecordEventReason, detail: readonly string[], note: () => string): void {
    const prev = this.last.get(key);
    const state = detail.length === 1 ? `${reason}\u0001${detail[0] ?? ''}` : `${reason}\u0001${detail.join(',')}`;
    if (prev !== undefined && prev.state === state) return;
    this.last.set(key, { state, round });
    this.write(resource, reason, note());
  }

  private write(resource: string, reason: RecordEventReason, note: string): void {
    if (!this.opts.enabled.has(reason)) return;
    const obj = involvedObjectOf(resource, this.opts.crd);
    if (obj === undefined) return;
    this.opts.recorder.record(obj, reason === 'RecordError' ? 'Warning' : 'Normal', reason, note);
  }
}
