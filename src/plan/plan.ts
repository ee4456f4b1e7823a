/**
 * The planner: a pure function from (current records, desired endpoints, settings) to the changes
 * that move the provider towards the desired state, with external-dns `plan.Calculate` semantics.
 *
 * Rows are keyed by (dnsName, setIdentifier) and split by record type. Only records this instance
 * owns are updated or deleted; a name holding a record it does not own accepts no new types; a
 * CNAME never ends up next to another type; a record of a held resource (an object its source
 * could not translate) is neither updated nor deleted. Names are expected to be normalised already (sources
 * and registries run them through normalizeDnsName), so rows compare them as plain strings.
 */
import { LABEL_OWNER, LABEL_RESOURCE, canonicalTarget, endpointKey, newEndpoint, sameProviderSpecific, sameTargets } from '../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../endpoint/endpoint.ts';
import type { DomainMatcher } from '../endpoint/domain-filter.ts';
import type { Changes } from './changes.ts';
import { cnameConflictLoser, compareCandidates, resolveCreate, resolveUpdate } from './conflict.ts';
import { compareDecisions, makeDecision } from './decision.ts';
import type { Decision, DecisionAction, ReasonCode } from './decision.ts';
import { policyAllows, policyForbidsReason } from './policy.ts';
import type { Policy } from './policy.ts';

export type { Decision, DecisionAction, Policy, ReasonCode };

export const DEFAULT_MANAGED_RECORD_TYPES: readonly RecordType[] = ['A', 'AAAA', 'CNAME'];

export interface PlanInput {
  /** Registry records: labels.owner / labels.resource filled in, ownership records hidden. */
  current: Endpoint[];
  /** Endpoints from sources, labels.resource set to "kind/namespace/name". */
  desired: Endpoint[];
  /** '' disables ownership checks: every record counts as ours. */
  ownerId: string;
  policy: Policy;
  managedRecordTypes: readonly RecordType[];
  excludeRecordTypes: readonly RecordType[];
  /** Names outside it are left alone on both sides. */
  domainFilter: DomainMatcher;
  /** Records owned by this id count as ours and are re-labelled to ownerId. */
  migrateFromOwner?: string;
  /** Collect decisions only for these (normalised) names; undefined collects none. */
  explainNames?: ReadonlySet<string>;
  /**
   * `resource` labels of objects the sources could not translate (`Source.heldResources()`): our
   * records carrying one are neither updated nor deleted, and count as staying at their name, so
   * no other object takes the name over meanwhile. Records without a resource label (no TXT
   * registry) cannot be tied to an object and are planned as usual. An entry `<kind>/*` holds every
   * record of that kind (a source whose CRD is not served yet and has never been listed).
   */
  heldResources?: ReadonlySet<string>;
}

/** `updateOld` and `delete` hold the input objects; `create` and `updateNew` are new endpoints. */
export interface PlanResult {
  changes: Changes;
  decisions: Decision[];
  /**
   * Records of another owner (or of none) that kept this plan from creating records at their name,
   * one entry per such record at each row with a blocked create (external-dns's
   * skipped_records_owner_mismatch_per_sync counts the same); empty without an owner id.
   */
  ownerMismatches: OwnerMismatch[];
}

export interface OwnerMismatch {
  recordType: RecordType;
  /** The record's owner label; without one, its set identifier (as external-dns reports it), often ''. */
  foreignOwner: string;
  /** The record's parent domain (`www.example.org` → `example.org`); a two-label name stays as it is. */
  domain: string;
}

/**
 * One record type at one (dnsName, setIdentifier) row. Rows are linked lists of these so that the
 * common row (one type, one current, one candidate) costs a single small object.
 */
interface Slot {
  recordType: RecordType;
  current: Endpoint | undefined;
  /** The first desired endpoint; `more` holds any further ones (conflicts are rare). */
  candidate: Endpoint | undefined;
  more: Endpoint[] | undefined;
  next: Slot | undefined;
}

type Ownership = 'ours' | 'migrate' | 'foreign' | 'unowned';

interface Context {
  ownerId: string;
  held: ReadonlySet<string> | undefined;
  migrateFrom: string;
  policy: Policy;
  creates: Endpoint[];
  updateOld: Endpoint[];
  updateNew: Endpoint[];
  deletes: Endpoint[];
  decisions: Decision[];
  ownerMismatches: OwnerMismatch[];
}

export function calculatePlan(input: PlanInput): PlanResult {
  const managed = new Set<RecordType>(input.managedRecordTypes);
  for (const t of input.excludeRecordTypes) managed.delete(t);
  const filter = input.domainFilter.isConfigured() ? input.domainFilter : undefined;
  const explainNames = input.explainNames !== undefined && input.explainNames.size > 0 ? input.explainNames : undefined;
  const migrateFrom = input.migrateFromOwner ?? '';
  const ctx: Context = {
    ownerId: input.ownerId,
    held: input.heldResources !== undefined && input.heldResources.size > 0 ? input.heldResources : undefined,
    migrateFrom: migrateFrom === input.ownerId ? '' : migrateFrom,
    policy: input.policy,
    creates: [],
    updateOld: [],
    updateNew: [],
    deletes: [],
    decisions: [],
    ownerMismatches: [],
  };

  const rows = new Map<string, Slot>();
  const unmanaged = new Map<string, number>();
  addRecords(rows, input.current, unmanaged, managed, filter, explainNames, ctx.decisions);
  addRecords(rows, input.desired, undefined, managed, filter, explainNames, ctx.decisions);
  if (unmanaged.size === 0) {
    for (const head of rows.values()) planRow(head, 0, explainNames !== undefined && explainNames.has(firstName(head)), ctx);
  } else {
    for (const [key, head] of rows) planRow(head, unmanaged.get(key) ?? 0, explainNames !== undefined && explainNames.has(firstName(head)), ctx);
  }

  const [updateOld, updateNew] = sortUpdates(ctx.updateOld, ctx.updateNew);
  return {
    changes: { create: sortByKey(ctx.creates), updateOld, updateNew, delete: sortByKey(ctx.deletes) },
    decisions: ctx.decisions.sort(compareDecisions),
    // Sorted, so the result does not depend on the order of the inputs.
    ownerMismatches: ctx.ownerMismatches.sort(compareMismatches),
  };
}

/** Bits for the types of unmanaged current records at a row: they stay, so they count for CNAME exclusivity. */
const UNMANAGED_CNAME = 1;
const UNMANAGED_OTHER = 2;

function rowKey(ep: Endpoint): string {
  return ep.setIdentifier === '' ? ep.dnsName : `${ep.dnsName}\u0000${ep.setIdentifier}`;
}

/** Adds current records (when `unmanaged` is given) or desired endpoints (when it is undefined) to the rows. */
function addRecords(
  rows: Map<string, Slot>,
  endpoints: readonly Endpoint[],
  unmanaged: Map<string, number> | undefined,
  managed: ReadonlySet<RecordType>,
  filter: DomainMatcher | undefined,
  explainNames: ReadonlySet<string> | undefined,
  decisions: Decision[],
): void {
  const isCurrent = unmanaged !== undefined;
  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i] as Endpoint;
    if (!managed.has(ep.recordType)) {
      if (unmanaged !== undefined) {
        const key = rowKey(ep);
        unmanaged.set(key, (unmanaged.get(key) ?? 0) | (ep.recordType === 'CNAME' ? UNMANAGED_CNAME : UNMANAGED_OTHER));
      }
      if (explainNames?.has(ep.dnsName) === true) {
        decisions.push(makeDecision(ep, 'skip', 'type-not-managed', `type ${ep.recordType} not managed`, side(ep, isCurrent)));
      }
      continue;
    }
    const key = rowKey(ep);
    const head = rows.get(key);
    let slot = head;
    while (slot !== undefined && slot.recordType !== ep.recordType) slot = slot.next;
    if (slot === undefined) {
      // Only rows inside the filter exist, so the filter runs once per row, not once per record.
      if (head === undefined && filter !== undefined && !filter.match(ep.dnsName)) {
        if (explainNames?.has(ep.dnsName) === true) {
          const why = filter.explainMismatch(ep.dnsName) ?? 'outside the domain filter';
          decisions.push(makeDecision(ep, 'skip', 'outside-domain-filter', why, side(ep, isCurrent)));
        }
        continue;
      }
      slot = { recordType: ep.recordType, current: undefined, candidate: undefined, more: undefined, next: undefined };
      if (head === undefined) rows.set(key, slot);
      else {
        slot.next = head.next;
        head.next = slot;
      }
    }
    if (!isCurrent) {
      if (slot.candidate === undefined) slot.candidate = ep;
      else if (slot.more === undefined) slot.more = [ep];
      else slot.more.push(ep);
    } else if (slot.current === undefined || compareCandidates(ep, slot.current) < 0) {
      // Providers hold one record set per key; should one report duplicates, the choice is still order-independent.
      slot.current = ep;
    }
  }
}

/** The dnsName of a row, from whichever record the slot holds. */
function firstName(slot: Slot): string {
  return (slot.current ?? (slot.candidate as Endpoint)).dnsName;
}

function side(ep: Endpoint, isCurrent: boolean): { current?: Endpoint; desired?: Endpoint } {
  return isCurrent ? { current: ep } : { desired: ep };
}

function ownership(ep: Endpoint, ctx: Context): Ownership {
  if (ctx.ownerId === '') return 'ours';
  const owner = ep.labels[LABEL_OWNER];
  if (owner === ctx.ownerId) return 'ours';
  if (owner === undefined || owner === '') return 'unowned';
  return owner === ctx.migrateFrom ? 'migrate' : 'foreign';
}

/** Which types keep a current record at a name after this plan (a CNAME must stay alone at its name). */
interface Stays {
  cname: boolean;
  other: boolean;
}

function keep(stays: Stays, recordType: string): void {
  if (recordType === 'CNAME') stays.cname = true;
  else stays.other = true;
}

/** One name's slots: the record that blocks new types at it (foreign or unowned), and who loses a CNAME-vs-others conflict. */
function surveyRow(head: Slot, ctx: Context): { blocker: Endpoint | undefined; loser: ReturnType<typeof cnameConflictLoser> } {
  let blocker: Endpoint | undefined;
  const seen = { cnameCandidate: false, otherCandidate: false, cnameCurrent: false, otherCurrent: false };
  for (let g: Slot | undefined = head; g !== undefined; g = g.next) {
    const isCname = g.recordType === 'CNAME';
    if (g.current !== undefined) {
      if (isCname) seen.cnameCurrent = true;
      else seen.otherCurrent = true;
      const state = ownership(g.current, ctx);
      if ((state === 'foreign' || state === 'unowned') && (blocker === undefined || g.recordType < blocker.recordType)) blocker = g.current;
    }
    if (g.candidate !== undefined) {
      if (isCname) seen.cnameCandidate = true;
      else seen.otherCandidate = true;
    }
  }
  return { blocker, loser: cnameConflictLoser(seen.cnameCandidate, seen.otherCandidate, seen.cnameCurrent, seen.otherCurrent) };
}

function planRow(head: Slot, unmanagedTypes: number, explain: boolean, ctx: Context): void {
  const { blocker, loser } = surveyRow(head, ctx);
  const stays: Stays = { cname: (unmanagedTypes & UNMANAGED_CNAME) !== 0, other: (unmanagedTypes & UNMANAGED_OTHER) !== 0 };
  let pending: Endpoint[] | undefined;
  let blocked = false;
  for (let g: Slot | undefined = head; g !== undefined; g = g.next) {
    let first = g.candidate;
    const lostTypeConflict = loser !== undefined && first !== undefined && (loser === 'cname') === (g.recordType === 'CNAME');
    if (lostTypeConflict) {
      if (explain) explainTypeConflict(candidatesOf(g), loser, ctx);
      first = undefined;
    }
    if (g.current === undefined) {
      const winner = first === undefined ? undefined : creatable(g, first, blocker, explain, ctx);
      if (winner !== undefined) (pending ??= []).push(winner);
      else if (first !== undefined && blocker !== undefined) blocked = true;
    } else {
      planExisting(g, g.current, first, lostTypeConflict, stays, explain, ctx);
    }
  }
  if (pending !== undefined) createPending(pending, stays, explain, ctx);
  if (blocked) noteOwnerMismatches(head, ctx);
}

/** Every record at a row that is not ours, once per row whose creates it blocked. */
function noteOwnerMismatches(head: Slot, ctx: Context): void {
  for (let g: Slot | undefined = head; g !== undefined; g = g.next) {
    const cur = g.current;
    if (cur === undefined) continue;
    const state = ownership(cur, ctx);
    if (state !== 'foreign' && state !== 'unowned') continue;
    ctx.ownerMismatches.push({ recordType: cur.recordType, foreignOwner: cur.labels[LABEL_OWNER] ?? cur.setIdentifier, domain: parentDomain(cur.dnsName) });
  }
}

function compareMismatches(a: OwnerMismatch, b: OwnerMismatch): number {
  const ka = `${a.domain}\u0000${a.recordType}\u0000${a.foreignOwner}`;
  const kb = `${b.domain}\u0000${b.recordType}\u0000${b.foreignOwner}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The name without its first label, unless that would leave a single label (external-dns's "naked domain"). */
export function parentDomain(name: string): string {
  const dot = name.indexOf('.');
  if (dot === -1 || !name.slice(dot + 1).includes('.')) return name;
  return name.slice(dot + 1);
}

/** The record to create at a slot with no current record, unless a foreign or unowned record blocks the name. */
function creatable(g: Slot, first: Endpoint, blocker: Endpoint | undefined, explain: boolean, ctx: Context): Endpoint | undefined {
  const winner = g.more === undefined ? first : resolveCreate(candidatesOf(g));
  if (explain) explainLosers(g, winner, ctx);
  if (blocker === undefined) return winner;
  if (explain) ctx.decisions.push(blockedDecision(winner, blocker));
  return undefined;
}

/** A slot with a current record: leave it (not ours), delete it (no longer desired) or update it. */
function planExisting(g: Slot, cur: Endpoint, first: Endpoint | undefined, lostTypeConflict: boolean, stays: Stays, explain: boolean, ctx: Context): void {
  const state = ownership(cur, ctx);
  if (state === 'foreign' || state === 'unowned') {
    keep(stays, g.recordType);
    if (explain) explainNotOurs(cur, first === undefined ? undefined : candidatesOf(g), state, ctx);
    return;
  }
  const heldBy = ctx.held === undefined ? undefined : cur.labels[LABEL_RESOURCE];
  if (heldBy !== undefined && isHeld(ctx.held, heldBy)) {
    keep(stays, g.recordType);
    if (explain) explainHeld(cur, heldBy, first === undefined ? [] : candidatesOf(g), ctx);
    return;
  }
  if (first === undefined) {
    if (policyAllows(ctx.policy, 'delete')) {
      ctx.deletes.push(cur);
      if (explain) {
        const [code, reason]: [ReasonCode, string] = lostTypeConflict
          ? ['cname-conflict', 'desired records of another type replace it; a CNAME cannot coexist with them']
          : ['no-longer-desired', 'no longer desired by any resource'];
        ctx.decisions.push(makeDecision(cur, 'delete', code, reason, { current: cur }));
      }
    } else {
      keep(stays, g.recordType);
      if (explain) ctx.decisions.push(makeDecision(cur, 'skip', 'policy-forbids', policyForbidsReason(ctx.policy, 'delete'), { current: cur }));
    }
    return;
  }
  keep(stays, g.recordType);
  const winner = g.more === undefined ? first : resolveUpdate(cur, candidatesOf(g));
  if (explain) explainLosers(g, winner, ctx);
  planUpdate(cur, winner, state === 'migrate', explain, ctx);
}

/** Creates the new records of a name, once it is known which types stay there: never a CNAME beside other types. */
function createPending(pending: readonly Endpoint[], stays: Stays, explain: boolean, ctx: Context): void {
  for (const winner of pending) {
    const clash = winner.recordType === 'CNAME' ? stays.other : stays.cname;
    if (clash) {
      if (explain) {
        const reason =
          winner.recordType === 'CNAME'
            ? 'a CNAME cannot coexist with the records of other types that stay at this name'
            : `${winner.recordType} cannot coexist with the CNAME that stays at this name`;
        ctx.decisions.push(makeDecision(winner, 'skip', 'cname-conflict', reason, { desired: winner }));
      }
      continue;
    }
    const labels = ctx.ownerId === '' ? { ...winner.labels } : { ...winner.labels, [LABEL_OWNER]: ctx.ownerId };
    ctx.creates.push(newEndpoint({ ...winner, labels }));
    if (explain) ctx.decisions.push(makeDecision(winner, 'create', 'new', 'new record', { desired: winner }));
  }
}

/** What differs between a current record and the desired one, as the fields `explain` names. */
function differences(cur: Endpoint, winner: Endpoint, migrating: boolean): { fields: string[]; rewrite: boolean } {
  const targetsChanged = !targetsEqual(cur.recordType, winner.targets, cur.targets);
  const ttlChanged = winner.recordTTL > 0 && winner.recordTTL !== cur.recordTTL;
  const providerSpecificChanged =
    (winner.providerSpecific.length > 0 || cur.providerSpecific.length > 0) && !sameProviderSpecific(winner.providerSpecific, cur.providerSpecific);
  const desiredResource = winner.labels[LABEL_RESOURCE];
  const resourceChanged = desiredResource !== undefined && desiredResource !== cur.labels[LABEL_RESOURCE];
  const fields: string[] = [];
  if (targetsChanged) fields.push('targets');
  if (ttlChanged) fields.push('recordTTL');
  if (providerSpecificChanged) fields.push('providerSpecific');
  if (migrating) fields.push('owner');
  if (resourceChanged) fields.push('resource');
  // external-dns does not rewrite a record only because the resource label differs.
  return { fields, rewrite: targetsChanged || ttlChanged || providerSpecificChanged || migrating };
}

function planUpdate(cur: Endpoint, winner: Endpoint, migrating: boolean, explain: boolean, ctx: Context): void {
  const { fields, rewrite } = differences(cur, winner, migrating);
  if (!rewrite) {
    if (explain) {
      const reason = fields.includes('resource')
        ? `up to date (resource label differs from "${cur.labels[LABEL_RESOURCE] ?? ''}" but is not rewritten alone)`
        : 'up to date';
      ctx.decisions.push(makeDecision(cur, 'keep', 'up-to-date', reason, { desired: winner, current: cur }));
    }
    return;
  }
  if (!policyAllows(ctx.policy, 'update')) {
    if (explain) {
      ctx.decisions.push(makeDecision(cur, 'skip', 'policy-forbids', policyForbidsReason(ctx.policy, 'update'), { desired: winner, current: cur, fields }));
    }
    return;
  }
  const labels = { ...cur.labels };
  const desiredResource = winner.labels[LABEL_RESOURCE];
  if (desiredResource !== undefined) labels[LABEL_RESOURCE] = desiredResource;
  if (ctx.ownerId !== '') labels[LABEL_OWNER] = ctx.ownerId;
  ctx.updateOld.push(cur);
  ctx.updateNew.push(newEndpoint({ ...winner, labels }));
  if (explain) ctx.decisions.push(updateDecision(cur, winner, fields, migrating, ctx));
}

function updateDecision(cur: Endpoint, winner: Endpoint, fields: string[], migrating: boolean, ctx: Context): Decision {
  const has = (f: string): boolean => fields.includes(f);
  const code: ReasonCode = migrating ? 'owner-migration' : has('targets') ? 'targets-changed' : has('recordTTL') ? 'ttl-changed' : 'provider-specific-changed';
  const reason = migrating
    ? `taking over from owner "${ctx.migrateFrom}"${fields.length > 1 ? `; ${fields.filter((f) => f !== 'owner').join(', ')} changed` : ''}`
    : `${fields.join(', ')} changed`;
  return makeDecision(cur, 'update', code, reason, { desired: winner, current: cur, fields });
}

/** sameTargets with an allocation-free path for the usual single-target record set. */
function targetsEqual(recordType: RecordType, a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  if (a.length === 1) {
    const x = a[0] as string;
    const y = b[0] as string;
    return x === y || canonicalTarget(recordType, x) === canonicalTarget(recordType, y);
  }
  return sameTargets(recordType, a, b);
}

function candidatesOf(slot: Slot): Endpoint[] {
  if (slot.candidate === undefined) return [];
  return slot.more === undefined ? [slot.candidate] : [slot.candidate, ...slot.more];
}

function explainLosers(slot: Slot, winner: Endpoint, ctx: Context): void {
  const to = winner.labels[LABEL_RESOURCE] ?? '';
  for (const c of candidatesOf(slot)) {
    if (c === winner) continue;
    const reason = to === '' ? 'conflict lost to a candidate without a resource label' : `conflict lost to resource ${to}`;
    ctx.decisions.push(makeDecision(c, 'skip', 'conflict-lost', reason, { desired: c }));
  }
}

function explainTypeConflict(candidates: readonly Endpoint[], loser: 'cname' | 'other', ctx: Context): void {
  for (const c of candidates) {
    const reason =
      loser === 'cname'
        ? 'a CNAME cannot coexist with other record types; the other types are preferred'
        : `${c.recordType} cannot coexist with the CNAME that already holds this name`;
    ctx.decisions.push(makeDecision(c, 'skip', 'cname-conflict', reason, { desired: c }));
  }
}

/** Held by its own label, or with every record of its kind (`kind/*`: its source's resource is not served yet). */
function isHeld(held: ReadonlySet<string> | undefined, resource: string): boolean {
  if (held === undefined) return false;
  return held.has(resource) || held.has(`${resource.split('/', 1)[0]}/*`);
}

function explainHeld(cur: Endpoint, resource: string, candidates: readonly Endpoint[], ctx: Context): void {
  const reason = ctx.held?.has(resource)
    ? `resource ${resource} is held: its source could not translate it (see the source's problems), so its records are neither updated nor deleted`
    : `resource ${resource} is held: its source cannot read its kind yet (the API server does not serve it: CRD not installed), so records of that kind are neither updated nor deleted`;
  ctx.decisions.push(makeDecision(cur, 'skip', 'resource-held', reason, { current: cur }));
  for (const c of candidates) ctx.decisions.push(makeDecision(c, 'skip', 'resource-held', reason, { desired: c, current: cur }));
}

function explainNotOurs(cur: Endpoint, candidates: readonly Endpoint[] | undefined, state: Ownership, ctx: Context): void {
  const owner = cur.labels[LABEL_OWNER] ?? '';
  const [code, reason]: [ReasonCode, string] =
    state === 'foreign' ? ['owned-by-other', `owned by another owner "${owner}"`] : ['unowned-blocks', 'record exists without an owner label; not taken over'];
  if (candidates === undefined) {
    ctx.decisions.push(makeDecision(cur, 'skip', code, `${reason}; left alone`, { current: cur }));
    return;
  }
  for (const c of candidates) ctx.decisions.push(makeDecision(c, 'skip', code, reason, { desired: c, current: cur }));
}

function blockedDecision(winner: Endpoint, blocker: Endpoint): Decision {
  const owner = blocker.labels[LABEL_OWNER] ?? '';
  return owner === ''
    ? makeDecision(winner, 'skip', 'unowned-blocks', `name has a ${blocker.recordType} record without an owner label`, { desired: winner, current: blocker })
    : makeDecision(winner, 'skip', 'owned-by-other', `name has a ${blocker.recordType} record owned by another owner "${owner}"`, {
        desired: winner,
        current: blocker,
      });
}

function sortByKey(endpoints: Endpoint[]): Endpoint[] {
  if (endpoints.length < 2) return endpoints;
  const keyed = endpoints.map((ep) => ({ key: endpointKey(ep), ep }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.ep);
}

function sortUpdates(oldList: Endpoint[], newList: Endpoint[]): [Endpoint[], Endpoint[]] {
  if (oldList.length < 2) return [oldList, newList];
  const keyed = oldList.map((ep, i) => ({ key: endpointKey(ep), old: ep, next: newList[i] as Endpoint }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return [keyed.map((k) => k.old), keyed.map((k) => k.next)];
}
