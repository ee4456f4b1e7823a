/**
 * The planner's Changes as Route53 change groups per zone. Updates become UPSERTs when the record
 * set keeps its identity and DELETE + CREATE when it does not (another set identifier, or an A or
 * AAAA switching between alias and plain values, as external-dns's requiresDeleteCreate); a CNAME ↔
 * alias switch arrives from the planner as a delete and creates of other types, which share the
 * name's group and so one request. Deletes reuse the record set exactly as Route53 returned it,
 * since Route53 refuses a DELETE that differs.
 */
import type { Change, ResourceRecordSet } from '@aws-sdk/client-route-53';
import { LABEL_OWNED_RECORD, describeEndpoint, endpointKey } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { errorMessage } from '../../errors.ts';
import type { Changes } from '../../plan/changes.ts';
import type { ChangeGroup } from './batch.ts';
import { endpointToRecordSet, isAlias, recordSetKey } from './convert.ts';
import type { ToRecordSetOptions } from './convert.ts';
import type { Zone, ZoneIndex } from './zones.ts';

export interface ZoneChanges {
  zone: Zone;
  groups: ChangeGroup[];
}

export interface PlannedChanges {
  zones: ZoneChanges[];
  /** Endpoints that cannot be written, with the reason. */
  rejected: { record: string; reason: string }[];
}

export interface BuildOptions extends ToRecordSetOptions {
  zones: ZoneIndex;
  /** The record set Route53 holds under a key, when the cache knows it. */
  existing: (zoneId: string, key: string) => ResourceRecordSet | undefined;
}

export function rsKey(rs: ResourceRecordSet): string {
  return recordSetKey(rs.Name ?? '', rs.Type ?? '', rs.SetIdentifier);
}

/** A record and its ownership TXT record share a group: the TXT carries the owned name. */
function groupKeyOf(ep: Endpoint): string {
  return `${ep.labels[LABEL_OWNED_RECORD] ?? ep.dnsName}\u0000${ep.setIdentifier}`;
}

export function buildChanges(changes: Changes, opts: BuildOptions): PlannedChanges {
  const rejected: PlannedChanges['rejected'] = [];
  const perZone = new Map<string, { zone: Zone; groups: Map<string, ChangeGroup> }>();

  const add = (ep: Endpoint, make: (zone: Zone) => Change[]): void => {
    const zones = opts.zones.zonesFor(ep.dnsName);
    if (zones.length === 0) {
      rejected.push({ record: describeEndpoint(ep), reason: 'no hosted zone contains it' });
      return;
    }
    for (const zone of zones) {
      let made: Change[];
      try {
        made = make(zone);
      } catch (err) {
        rejected.push({ record: describeEndpoint(ep), reason: errorMessage(err) });
        return;
      }
      let entry = perZone.get(zone.id);
      if (entry === undefined) {
        entry = { zone, groups: new Map() };
        perZone.set(zone.id, entry);
      }
      const key = groupKeyOf(ep);
      let group = entry.groups.get(key);
      if (group === undefined) {
        group = { key, changes: [], records: [] };
        entry.groups.set(key, group);
      }
      group.changes.push(...made);
      group.records.push(describeEndpoint(ep));
    }
  };

  const toRS = (ep: Endpoint): ResourceRecordSet => endpointToRecordSet(ep, opts);
  const deleteOf = (zone: Zone, ep: Endpoint): Change => {
    const rs = toRS(ep);
    return { Action: 'DELETE', ResourceRecordSet: opts.existing(zone.id, rsKey(rs)) ?? rs };
  };

  for (const ep of changes.create) add(ep, () => [{ Action: 'CREATE', ResourceRecordSet: toRS(ep) }]);
  const oldByKey = new Map(changes.updateOld.map((ep) => [endpointKey(ep), ep]));
  changes.updateNew.forEach((ep, i) => {
    const old = oldByKey.get(endpointKey(ep)) ?? changes.updateOld[i];
    add(ep, (zone) => {
      const next = toRS(ep);
      if (old === undefined || (rsKey(toRS(old)) === rsKey(next) && isAlias(old) === isAlias(ep))) return [{ Action: 'UPSERT', ResourceRecordSet: next }];
      return [deleteOf(zone, old), { Action: 'CREATE', ResourceRecordSet: next }];
    });
  });
  for (const ep of changes.delete) add(ep, (zone) => [deleteOf(zone, ep)]);

  return {
    zones: [...perZone.values()].map((z) => ({ zone: z.zone, groups: [...z.groups.values()] })),
    rejected,
  };
}
