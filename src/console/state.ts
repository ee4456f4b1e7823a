/**
 * What the web console shows, from what the sync loop already has: the last sync's report (the
 * records the provider holds, the desired ones, the planned changes and the planner's `explain`
 * over the same inputs), its outcome and times. Nothing here plans on its own: per-object outcomes
 * and explanations are the planner's decisions (SyncReport.explain), as `hostwarden explain` prints.
 */
import type { SyncReport } from '../controller/controller.ts';
import { LABEL_OWNER, LABEL_RESOURCE } from '../endpoint/endpoint.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import { errorMessage } from '../errors.ts';
import type { Decision } from '../plan/decision.ts';

export interface Rec {
  name: string;
  type: string;
  setIdentifier: string;
  targets: string[];
  ttl: number | null;
  owner: string | null;
  resource: string | null;
  ownership: 'this' | 'other' | 'none';
}

export interface FieldDiff {
  field: string;
  old: string;
  new: string;
}

export interface InstanceInfo {
  ownerId: string;
  provider: string;
  sources: string[];
  policy: string;
  registry: string;
  dryRun: boolean;
  version: string;
}

/** The sync loop's clock and counters (the Controller's public fields). */
export interface SyncClock {
  lastAttemptAt: number;
  lastSuccessAt: number;
  consecutiveFailures: number;
  nextSyncAt: number;
}

/** Names explained per request for the source-object view: the planner runs once over all of them. */
const MAX_EXPLAINED_NAMES = 5000;

export class ConsoleState {
  private report: SyncReport | undefined;
  private outcome: 'none' | 'ok' | 'failed' = 'none';
  private lastError: string | null = null;
  private sourcesCache: { report: SyncReport; body: unknown } | undefined;

  constructor(
    private readonly info: InstanceInfo,
    private readonly clock: () => SyncClock,
    private readonly applying: () => boolean,
    private readonly zones: () => string[],
  ) {}

  planned(report: SyncReport): void {
    this.report = report;
    this.outcome = 'ok';
    this.lastError = null;
  }

  failed(err: unknown): void {
    this.outcome = 'failed';
    // The controller's own error text (logged too): providers never put credentials in it.
    this.lastError = errorMessage(err);
  }

  state(): unknown {
    const c = this.clock();
    const changes = this.report?.changes;
    return {
      instance: this.info,
      sync: {
        lastAttemptAt: c.lastAttemptAt === 0 ? null : c.lastAttemptAt,
        lastSuccessAt: c.lastSuccessAt === 0 ? null : c.lastSuccessAt,
        nextAt: c.nextSyncAt === 0 ? null : c.nextSyncAt,
        outcome: this.outcome,
        error: this.lastError,
        consecutiveFailures: c.consecutiveFailures,
        applying: this.applying(),
      },
      // What the next sync will do: the last plan, unless this replica applied it already.
      plan: this.report?.applied === true ? { creates: [], updates: [], deletes: [] } : this.planOf(changes),
      lastApplied: this.report?.applied === true ? this.planOf(changes) : null,
      zones: this.zones(),
    };
  }

  /** What the provider holds now: the last sync's reading, with its changes when it applied them. */
  private held(): Endpoint[] {
    const report = this.report;
    if (report === undefined) return [];
    if (!report.applied) return [...report.current];
    const key = (e: Endpoint): string => `${e.dnsName}\u0000${e.recordType}\u0000${e.setIdentifier}`;
    const out = new Map(report.current.map((e) => [key(e), e]));
    for (const e of [...report.changes.delete, ...report.changes.updateOld]) out.delete(key(e));
    for (const e of [...report.changes.updateNew, ...report.changes.create]) out.set(key(e), e);
    return [...out.values()];
  }

  private planOf(changes: SyncReport['changes'] | undefined): unknown {
    return {
      creates: (changes?.create ?? []).map((e) => this.rec(e)),
      updates: (changes?.updateNew ?? []).map((n, i) => {
        const o = changes?.updateOld[i] ?? n;
        return { old: this.rec(o), new: this.rec(n), fields: fieldDiff(o, n) };
      }),
      deletes: (changes?.delete ?? []).map((e) => this.rec(e)),
    };
  }

  records(filter: RecordFilter): { total: number; records: Rec[] } {
    const all = this.held()
      .map((e) => this.rec(e))
      .filter((r) => matches(r, filter));
    all.sort((a, b) => a.name.localeCompare(b.name) || a.type.localeCompare(b.type) || a.setIdentifier.localeCompare(b.setIdentifier));
    return { total: all.length, records: all.slice(filter.offset, filter.offset + filter.limit) };
  }

  /** Per source object: what it asked for and what the planner decided about each record. */
  sources(): unknown {
    const report = this.report;
    if (report === undefined) return { objects: [] };
    if (this.sourcesCache?.report === report) return this.sourcesCache.body;
    const byResource = new Map<string, Endpoint[]>();
    for (const ep of report.desired) {
      const resource = ep.labels[LABEL_RESOURCE] ?? '(no object)';
      byResource.set(resource, [...(byResource.get(resource) ?? []), ep]);
    }
    const names = new Set(report.desired.map((e) => e.dnsName).slice(0, MAX_EXPLAINED_NAMES));
    const decisions = report.explain(names);
    const objects = [...byResource.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([resource, eps]) => ({ resource, records: eps.map((ep) => outcomeOf(ep, resource, decisions)) }));
    const body = { objects };
    this.sourcesCache = { report, body };
    return body;
  }

  /** The planner's decisions at one name, from the last sync's inputs; undefined before the first sync. */
  explain(name: string): { name: string; decisions: Decision[]; problems: string[] } | undefined {
    if (this.report === undefined) return undefined;
    return { name, decisions: this.report.explain(new Set([name])), problems: [] };
  }

  private rec(ep: Endpoint): Rec {
    const owner = ep.labels[LABEL_OWNER] ?? null;
    const ownerId = this.report?.ownerId ?? this.info.ownerId;
    return {
      name: ep.dnsName,
      type: ep.recordType,
      setIdentifier: ep.setIdentifier,
      targets: [...ep.targets],
      ttl: ep.recordTTL > 0 ? ep.recordTTL : null,
      owner: owner === '' ? null : owner,
      resource: ep.labels[LABEL_RESOURCE] ?? null,
      ownership: owner === null || owner === '' ? 'none' : owner === ownerId ? 'this' : 'other',
    };
  }
}

export interface RecordFilter {
  name: string;
  type: string;
  owner: string;
  source: string;
  ownership: string;
  limit: number;
  offset: number;
}

function matches(r: Rec, f: RecordFilter): boolean {
  const has = (value: string | null, part: string): boolean => part === '' || (value ?? '').toLowerCase().includes(part.toLowerCase());
  return (
    has(r.name, f.name) &&
    (f.type === '' || r.type === f.type.toUpperCase()) &&
    has(r.owner, f.owner) &&
    has(r.resource, f.source) &&
    (f.ownership === '' || r.ownership === f.ownership)
  );
}

function fieldDiff(o: Endpoint, n: Endpoint): FieldDiff[] {
  const out: FieldDiff[] = [];
  const add = (field: string, a: string, b: string): void => void (a !== b && out.push({ field, old: a, new: b }));
  add('targets', [...o.targets].sort().join(', '), [...n.targets].sort().join(', '));
  add('ttl', String(o.recordTTL), String(n.recordTTL));
  const ps = (e: Endpoint): string =>
    e.providerSpecific
      .map((p) => `${p.name}=${p.value}`)
      .sort()
      .join(', ');
  add('providerSpecific', ps(o), ps(n));
  add('owner', o.labels[LABEL_OWNER] ?? '', n.labels[LABEL_OWNER] ?? '');
  add('resource', o.labels[LABEL_RESOURCE] ?? '', n.labels[LABEL_RESOURCE] ?? '');
  return out;
}

function outcomeOf(ep: Endpoint, resource: string, decisions: readonly Decision[]): unknown {
  const same = decisions.filter((d) => d.dnsName === ep.dnsName && d.recordType === ep.recordType && d.setIdentifier === ep.setIdentifier);
  const d = same.find((x) => x.resource === resource) ?? same[0];
  return { name: ep.dnsName, type: ep.recordType, targets: [...ep.targets], action: d?.action ?? 'keep', reason: d?.reason ?? 'no decision recorded' };
}
