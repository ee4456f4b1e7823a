/**
 * Creates without a zone transfer (--no-rfc2136-axfr, external-dns's blind mode). Nothing is read,
 * so the planner asks to create every desired record on every sync and never knows who owns what
 * the zone already holds. A plain RFC 2136 add would then join a value to another owner's RRset,
 * replace their CNAME (a CNAME add replaces the CNAME at the name) or add our owner to their
 * ownership TXT. So a record and its ownership TXT travel together in one UPDATE whose
 * prerequisites (RFC 2136 section 2.4) say that none of their RRsets exists; when the server
 * answers that one does, the group is either already in place exactly as we would write it (our
 * own earlier sync) or taken by a record of unknown owner, and is then left alone.
 */
import { LABEL_OWNED_RECORD, describeEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { normalizeRecordName } from '../../endpoint/name.ts';
import { prerequisiteSize, updateRRSize } from './update-message.ts';
import type { AddRR, Prerequisite, UpdateRR } from './update-message.ts';

/** The creates that must succeed or fail together: the records at one name and their ownership TXT records. */
export interface CreateGroup {
  /** The name of the records (the name the ownership TXT records point at). */
  name: string;
  endpoints: Endpoint[];
}

/** A group ready to send: what to add, and the prerequisites for "none exists" and "all exist exactly". */
export interface GuardedGroup {
  zone: string;
  records: string[];
  updates: UpdateRR[];
  absent: Prerequisite[];
  present: Prerequisite[];
  /** Wire size upper bound of the group's updates and prerequisites (for packing batches). */
  size: number;
}

/** Sends one UPDATE; resolves false when a prerequisite did not hold, throws on any other failure. */
export type GuardedSend = (zone: string, prerequisites: Prerequisite[], updates: UpdateRR[]) => Promise<boolean>;

export interface GuardedOutcome {
  created: GuardedGroup[];
  /** Every RRset already held exactly these values (and our ownership TXT): nothing to do. */
  inPlace: GuardedGroup[];
  /** A RRset existed with other values: a record of unknown owner; nothing was sent for it. */
  taken: GuardedGroup[];
}

/**
 * Groups creates by the name of the record they concern: an ownership TXT record joins the record
 * named by its ownedRecord label (the TXT registry sets it), so it is never written without it.
 */
export function groupCreates(creates: readonly Endpoint[]): CreateGroup[] {
  const groups = new Map<string, CreateGroup>();
  for (const ep of creates) {
    const owned = ep.recordType === 'TXT' ? ep.labels[LABEL_OWNED_RECORD] : undefined;
    const name = normalizeRecordName(owned ?? ep.dnsName);
    const group = groups.get(name);
    if (group === undefined) groups.set(name, { name, endpoints: [ep] });
    else group.endpoints.push(ep);
  }
  return [...groups.values()];
}

/**
 * "This record could not be added without touching an existing RRset": its own type, and a CNAME,
 * which no other type may sit beside; a CNAME needs the whole name free (RFC 2136 3.4.2.2: a server
 * silently ignores the add otherwise, or replaces the CNAME there).
 */
export function absentPrerequisites(name: string, type: string): Prerequisite[] {
  if (type === 'CNAME') return [{ op: 'nameUnused', name }];
  return [
    { op: 'rrsetAbsent', name, type },
    { op: 'rrsetAbsent', name, type: 'CNAME' },
  ];
}

/**
 * The group as one guarded message: its additions (from `additions`, the provider's TTL rules),
 * "none of these RRsets exists" and "each holds exactly these values". Throws when a value cannot
 * be encoded.
 */
export function guardedGroup(zone: string, group: CreateGroup, additions: (name: string, ep: Endpoint) => AddRR[]): GuardedGroup {
  const updates: UpdateRR[] = [];
  const absent: Prerequisite[] = [];
  const present: Prerequisite[] = [];
  for (const ep of group.endpoints) {
    const name = normalizeRecordName(ep.dnsName);
    const adds = additions(name, ep);
    updates.push(...adds);
    absent.push(...absentPrerequisites(name, ep.recordType));
    present.push({ op: 'rrsetEquals', name, type: ep.recordType, rdata: adds.map((a) => a.rdata) });
  }
  const prerequisites = { absent: uniquePrerequisites(absent), present: uniquePrerequisites(present) };
  const size =
    updates.reduce((n, u) => n + updateRRSize(u), 0) + [...prerequisites.absent, ...prerequisites.present].reduce((n, p) => n + prerequisiteSize(p), 0);
  return { zone, records: describeGroup(group), updates, ...prerequisites, size };
}

/** Drops repeated prerequisites (two records of one group share the CNAME check). */
export function uniquePrerequisites(list: readonly Prerequisite[]): Prerequisite[] {
  const seen = new Set<string>();
  return list.filter((p) => {
    const key =
      p.op === 'rrsetEquals'
        ? `${p.op} ${p.name} ${p.type} ${p.rdata.join('\n')}`
        : p.op === 'rrsetAbsent'
          ? `${p.op} ${p.name} ${p.type}`
          : `${p.op} ${p.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Describes a group for logs and errors. */
export function describeGroup(group: CreateGroup): string[] {
  return group.endpoints.map((ep) => describeEndpoint(ep));
}

/**
 * Sends a batch of groups of one zone in one message. When a prerequisite fails, asks whether the
 * whole batch is already in place; otherwise splits it in halves until each group is settled on its
 * own, so one taken name never holds back the others. In the steady state of blind mode (everything
 * created by an earlier sync) a batch costs two messages.
 */
export async function settleGuarded(zone: string, groups: readonly GuardedGroup[], send: GuardedSend, out: GuardedOutcome): Promise<void> {
  if (groups.length === 0) return;
  if (
    await send(
      zone,
      groups.flatMap((g) => g.absent),
      groups.flatMap((g) => g.updates),
    )
  ) {
    out.created.push(...groups);
    return;
  }
  // A message with prerequisites and no updates changes nothing: it only asks.
  if (
    await send(
      zone,
      groups.flatMap((g) => g.present),
      [],
    )
  ) {
    out.inPlace.push(...groups);
    return;
  }
  if (groups.length === 1) {
    out.taken.push(...groups);
    return;
  }
  const half = Math.ceil(groups.length / 2);
  await settleGuarded(zone, groups.slice(0, half), send, out);
  await settleGuarded(zone, groups.slice(half), send, out);
}
