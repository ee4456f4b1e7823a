/**
 * The planner's Changes as one Cloudflare record change per target, as external-dns makes them:
 * creates post every target; an update puts the kept ones (so a TTL, proxied, comment or tags change
 * reaches every record of the name), rewrites a record whose value was replaced in place, and
 * deletes or posts only what is left over (external-dns deletes and posts every replaced value);
 * deletes remove every target. With custom hostnames on, deletes come first so that a hostname
 * moving to another record is free before it is created again.
 */
import { describeEndpoint, getProviderSpecific } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Logger } from '../../log.ts';
import type { Changes } from '../../plan/changes.ts';
import type { CfRecordInput } from './api.ts';
import { shouldBeProxied, trimComment } from './adjust.ts';
import { AUTOMATIC_TTL, parseTags, recordIndex, recordInput } from './convert.ts';
import type { PropertyNames } from './convert.ts';

export type Action = 'create' | 'update' | 'delete';

export interface RecordChange {
  action: Action;
  input: CfRecordInput;
  /** The endpoint target this record holds (upstream's record index: name, type, target). */
  index: string;
  ep: Endpoint;
  /** For updates: the endpoint as it was (its custom hostnames are the ones to remove). */
  previous?: Endpoint;
  /** An update rewriting the record of a replaced value (`index` is that value's, not the new one's). */
  replacement?: boolean;
}

export interface ChangeSettings {
  names: PropertyNames;
  proxiedByDefault: boolean;
  recordComment: string;
  customHostnames: boolean;
  /** Whether the zone of a name has a paid plan (longer comments). */
  paid: (name: string) => boolean;
  logger?: Logger;
}

function canonical(type: string, target: string): string {
  return type === 'TXT' || type === 'CAA' ? target : target.toLowerCase().replace(/(.)\.$/, '$1');
}

export function recordChanges(changes: Changes, s: ChangeSettings): { changes: RecordChange[]; rejected: { record: string; reason: string }[] } {
  const out: RecordChange[] = [];
  const rejected: { record: string; reason: string }[] = [];
  // `replaces`: the value whose record an update rewrites, when it is not `target` itself.
  const add = (action: Action, ep: Endpoint, target: string, previous?: Endpoint, replaces = target): void => {
    try {
      const input = recordInput(ep, target, settingsOf(ep, s));
      out.push({
        action,
        input,
        index: recordIndex(ep.dnsName, ep.recordType, replaces),
        ep,
        ...(previous === undefined ? {} : { previous }),
        ...(replaces === target ? {} : { replacement: true }),
      });
    } catch (err) {
      rejected.push({ record: describeEndpoint(ep), reason: err instanceof Error ? err.message : String(err) });
    }
  };
  const deletes = (): void => {
    for (const ep of changes.delete) for (const t of ep.targets) add('delete', ep, t);
  };
  if (s.customHostnames) deletes();
  for (const ep of changes.create) for (const t of ep.targets) add('create', ep, t);
  changes.updateNew.forEach((desired, i) => {
    const current = changes.updateOld[i] ?? desired;
    const was = new Map(current.targets.map((t) => [canonical(current.recordType, t), t]));
    const now = new Set(desired.targets.map((t) => canonical(desired.recordType, t)));
    const gone = [...was].filter(([c]) => !now.has(c)).map(([, t]) => t);
    const fresh = desired.targets.filter((t) => !was.has(canonical(desired.recordType, t)));
    // A value replaced by another is one in-place update of the old record (external-dns deletes
    // it and posts the new one): half the operations, and a refused change leaves the old value.
    const paired = Math.min(gone.length, fresh.length);
    for (let j = 0; j < paired; j++) add('update', desired, fresh[j] as string, current, gone[j] as string);
    for (const t of gone.slice(paired)) add('delete', current, t, current);
    for (const t of desired.targets) if (was.has(canonical(desired.recordType, t))) add('update', desired, t, current);
    for (const t of fresh.slice(paired)) add('create', desired, t, current);
  });
  if (!s.customHostnames) deletes();
  return { changes: out, rejected };
}

function settingsOf(ep: Endpoint, s: ChangeSettings): { proxied: boolean; ttl: number; comment: string; tags: string[] } {
  const comment = getProviderSpecific(ep, s.names.comment) ?? s.recordComment;
  const tags = getProviderSpecific(ep, s.names.tags);
  return {
    proxied: shouldBeProxied(ep, s.names, s.proxiedByDefault, s.logger),
    ttl: ep.recordTTL > 0 ? ep.recordTTL : AUTOMATIC_TTL,
    comment: trimComment(comment, s.paid(ep.dnsName), ep.dnsName, s.logger),
    tags: tags === undefined ? [] : parseTags(tags),
  };
}
