/**
 * One NAPTR/DNAME sync scenario shared by the provider tests: desired endpoints as the crd source
 * hands them out (validated), through the TXT registry and the planner as the controller runs
 * them. Each provider test checks the provider's own side (dig, the emulator's stored values).
 */
import { AllDomainFilters, DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../src/endpoint/endpoint.ts';
import { validateEndpoint } from '../../src/endpoint/validate.ts';
import { silentLogger } from '../../src/log.ts';
import type { Logger } from '../../src/log.ts';
import { hasChanges } from '../../src/plan/changes.ts';
import type { Changes } from '../../src/plan/changes.ts';
import { calculatePlan } from '../../src/plan/plan.ts';
import type { Provider } from '../../src/provider/provider.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';

export const OWNER = 'hw-test';
export const MANAGED: readonly RecordType[] = ['A', 'NAPTR', 'DNAME'];
/** Upstream's crd test values: a regexp rule and a replacement rule. */
export const NAPTR_TARGETS = ['100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .', '102 10 "S" "SIP+D2T" "" _sip._tcp.example.net.'];
export const DNAME_TARGET = 'new.example.net';

export function desiredFor(zone: string): Endpoint[] {
  const resource = { resource: 'crd/default/records' };
  return [
    newEndpoint({ dnsName: `_sip._udp.${zone}`, recordType: 'NAPTR', targets: NAPTR_TARGETS, recordTTL: 300, labels: resource }),
    newEndpoint({ dnsName: `old.${zone}`, recordType: 'DNAME', targets: [`${DNAME_TARGET}.`], recordTTL: 300, labels: resource }),
    newEndpoint({ dnsName: `www.${zone}`, recordType: 'A', targets: ['192.0.2.10'], recordTTL: 300, labels: resource }),
  ].map((e) => validateEndpoint(e));
}

export interface Scenario {
  registry: TXTRegistry;
  /** Runs one sync of `desired`; returns the changes applied (undefined when there were none). */
  sync(desired: Endpoint[]): Promise<Changes | undefined>;
}

export function scenario(provider: Provider, zone: string, logger: Logger = silentLogger()): Scenario {
  const registry = new TXTRegistry(provider, { ownerId: OWNER, managedRecordTypes: [...MANAGED], excludeRecordTypes: [], logger });
  return {
    registry,
    async sync(desired) {
      const adjusted = await registry.adjustEndpoints(desired);
      const { changes } = calculatePlan({
        current: await registry.records(),
        desired: adjusted,
        ownerId: OWNER,
        policy: 'sync',
        managedRecordTypes: MANAGED,
        excludeRecordTypes: [],
        domainFilter: new AllDomainFilters([new DomainFilter({ include: [zone] }), provider.domainFilter()]),
      });
      if (!hasChanges(changes)) return undefined;
      await registry.applyChanges(changes);
      return changes;
    },
  };
}

/** The record of a name and type, if listed. */
export function find(records: readonly Endpoint[], name: string, type: string): Endpoint | undefined {
  return records.find((r) => r.dnsName === name && r.recordType === type);
}
