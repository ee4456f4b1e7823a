/**
 * ALIAS records on the pdns provider against a real PowerDNS, as external-dns writes them: a CNAME
 * endpoint with alias=true (the annotation or --prefer-alias) becomes an ALIAS rrset (the apex
 * rule is in the unit tests: the apex's unowned NS record keeps the planner from adding there), reads back as a CNAME with alias=true (so a second sync changes nothing), and switching
 * the property off turns it back into a CNAME.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagValues } from '../../src/config/config.ts';
import { AllDomainFilters } from '../../src/endpoint/domain-filter.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { hasChanges } from '../../src/plan/changes.ts';
import { calculatePlan } from '../../src/plan/plan.ts';
import { PdnsProvider } from '../../src/provider/pdns/pdns.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { pdnsUnavailable, startPdns } from '../support/pdns.ts';
import type { PdnsServer } from '../support/pdns.ts';

const ZONE = 'alias.test';
const skip = await pdnsUnavailable();
const TYPES = ['A', 'AAAA', 'CNAME'] as const;

const cname = (dnsName: string, target: string, alias?: string): Endpoint =>
  newEndpoint({
    dnsName,
    recordType: 'CNAME',
    targets: [target],
    labels: { resource: `service/default/${dnsName.split('.')[0] ?? ''}` },
    ...(alias === undefined ? {} : { providerSpecific: [{ name: 'alias', value: alias }] }),
  } satisfies EndpointInit);

describe('pdns provider: ALIAS records against PowerDNS', { skip: skip ?? false }, () => {
  let server: PdnsServer;
  let provider: PdnsProvider;
  let registry: TXTRegistry;

  before(async () => {
    server = await startPdns();
    await server.createZone(ZONE);
    const flags = new FlagValues(
      new Map<string, string>([
        ['pdns-server', server.apiUrl],
        ['pdns-api-key', server.apiKey],
      ]),
    );
    provider = await PdnsProvider.fromConfig({ flags, domainFilters: [], excludeDomains: [] }, { logger: silentLogger(), sleep: () => Promise.resolve() });
    registry = new TXTRegistry(provider, { ownerId: 'alias', managedRecordTypes: [...TYPES], excludeRecordTypes: [], logger: silentLogger() });
  });
  after(async () => {
    await server?.stop();
  });

  /** One sync as the controller runs it; true when something was applied. */
  async function sync(desired: Endpoint[]): Promise<boolean> {
    const { changes } = calculatePlan({
      current: await registry.records(),
      desired: await registry.adjustEndpoints(desired),
      ownerId: registry.ownerId,
      policy: 'sync',
      managedRecordTypes: [...TYPES],
      excludeRecordTypes: [],
      domainFilter: new AllDomainFilters([provider.domainFilter()]),
    });
    if (!hasChanges(changes)) return false;
    await registry.applyChanges(changes);
    return true;
  }

  const rrsetTypes = async (name: string): Promise<string[]> => {
    const zone = (await server.api('GET', `zones/${ZONE}.`)).body as { rrsets: { name: string; type: string }[] };
    return zone.rrsets
      .filter((r) => r.name === `${name}.`)
      .map((r) => r.type)
      .sort();
  };

  test('alias=true CNAMEs are ALIAS rrsets; a second sync is a no-op; alias off makes a CNAME again', async () => {
    const desired = [
      cname(`app.${ZONE}`, 'lb.example.net', 'true'),
      cname(`plain.${ZONE}`, 'lb.example.net'),
      // Properties PowerDNS cannot store (another provider's) do not cause updates either.
      newEndpoint({ ...cname(`weighted.${ZONE}`, 'lb.example.net'), providerSpecific: [{ name: 'aws/weight', value: '10' }] }),
    ];
    assert.equal(await sync(desired), true);
    assert.deepEqual(await rrsetTypes(`app.${ZONE}`), ['ALIAS']);
    assert.deepEqual(await rrsetTypes(`plain.${ZONE}`), ['CNAME']);
    const app = (await provider.records()).find((r) => r.dnsName === `app.${ZONE}`);
    assert.deepEqual(app?.providerSpecific, [{ name: 'alias', value: 'true' }]);
    assert.equal(app?.recordType, 'CNAME');
    assert.equal(await sync(desired), false, 'a second sync changes nothing');

    const switched = desired.map((e) =>
      e.dnsName === `app.${ZONE}`
        ? cname(`app.${ZONE}`, 'lb.example.net')
        : e.dnsName === `plain.${ZONE}`
          ? cname(`plain.${ZONE}`, 'lb.example.net', 'true')
          : e,
    );
    assert.equal(await sync(switched), true);
    assert.deepEqual(await rrsetTypes(`app.${ZONE}`), ['CNAME']);
    assert.deepEqual(await rrsetTypes(`plain.${ZONE}`), ['ALIAS']);
    assert.equal(await sync(switched), false);

    assert.equal(await sync([]), true);
    assert.deepEqual(await rrsetTypes(`app.${ZONE}`), []);
    assert.deepEqual(await rrsetTypes(`plain.${ZONE}`), []);
  });
});
