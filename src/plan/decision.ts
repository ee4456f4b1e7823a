/**
 * Decisions explain, per record set and candidate, what the planner did and why. They are only
 * built for names the caller asked about (`explain`), so a full plan of 100k records pays nothing.
 */
import { LABEL_OWNER, LABEL_RESOURCE } from '../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../endpoint/endpoint.ts';

export type DecisionAction = 'create' | 'update' | 'delete' | 'keep' | 'skip';

export type ReasonCode =
  | 'outside-domain-filter'
  | 'type-not-managed'
  | 'owned-by-other'
  | 'unowned-blocks'
  | 'conflict-lost'
  | 'policy-forbids'
  | 'cname-conflict'
  | 'targets-changed'
  | 'ttl-changed'
  | 'provider-specific-changed'
  | 'owner-migration'
  | 'resource-changed'
  | 'new'
  | 'no-longer-desired'
  | 'resource-held'
  | 'up-to-date';

export interface Decision {
  dnsName: string;
  recordType: RecordType;
  setIdentifier: string;
  action: DecisionAction;
  /** A sentence for humans, e.g. `owned by another owner "cluster-b"`. */
  reason: string;
  /** Stable code for tests, metrics and JSON output. */
  reasonCode: ReasonCode;
  /** For updates: which fields changed (`targets`, `recordTTL`, `providerSpecific`, `owner`, `resource`). */
  fields?: string[];
  /** Resource label of the desired endpoint involved. */
  resource?: string;
  /** Owner label of the current record involved. */
  owner?: string;
}

export interface DecisionSubjects {
  desired?: Endpoint | undefined;
  current?: Endpoint | undefined;
  fields?: string[] | undefined;
}

/** Builds a decision about the record set of `ep`, attaching resource/owner labels when present. */
export function makeDecision(ep: Endpoint, action: DecisionAction, reasonCode: ReasonCode, reason: string, subjects: DecisionSubjects = {}): Decision {
  const d: Decision = { dnsName: ep.dnsName, recordType: ep.recordType, setIdentifier: ep.setIdentifier, action, reason, reasonCode };
  if (subjects.fields !== undefined && subjects.fields.length > 0) d.fields = subjects.fields;
  const resource = subjects.desired?.labels[LABEL_RESOURCE];
  if (resource !== undefined && resource !== '') d.resource = resource;
  const owner = subjects.current?.labels[LABEL_OWNER];
  if (owner !== undefined && owner !== '') d.owner = owner;
  return d;
}

const ACTION_ORDER: Record<DecisionAction, number> = { create: 0, update: 1, delete: 2, keep: 3, skip: 4 };

export function compareDecisions(a: Decision, b: Decision): number {
  return (
    cmp(a.dnsName, b.dnsName) ||
    cmp(a.recordType, b.recordType) ||
    cmp(a.setIdentifier, b.setIdentifier) ||
    ACTION_ORDER[a.action] - ACTION_ORDER[b.action] ||
    cmp(a.resource ?? '', b.resource ?? '') ||
    cmp(a.owner ?? '', b.owner ?? '') ||
    cmp(a.reasonCode, b.reasonCode) ||
    cmp(a.reason, b.reason)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
