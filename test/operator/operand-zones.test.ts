/**
 * `zones` for GCP and Azure: the operand has one container per zone, and the zone filter in each
 * container's generated args (`--zone-id-filter`, as upstream passes for every provider) makes the
 * real provider keep that zone only. The providers read zone lists from in-memory APIs here; the
 * Azure path is also run end to end against the ARM emulator in operand-azure.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../src/log.ts';
import { buildOperand } from '../../src/operator/operand.ts';
import type { OperandSettings } from '../../src/operator/operand.ts';
import type { ExternalDNS, ExternalDNSSpec } from '../../src/operator/types.ts';
import { AzureProvider } from '../../src/provider/azure/azure.ts';
import type { AzureDnsApi, AzureZoneRef } from '../../src/provider/azure/client.ts';
import { GoogleProvider } from '../../src/provider/google/google.ts';
import type { GoogleDnsApi, GoogleZone } from '../../src/provider/google/client.ts';

const settings: OperandSettings = { namespace: 'hostwarden', image: 'hostwarden:test', platform: { openshift: false } };

function zoneFilters(spec: ExternalDNSSpec): string[][] {
  const ed: ExternalDNS = { metadata: { name: 'z', uid: 'u' }, spec };
  const { deployment } = buildOperand(ed, settings, { data: { 'gcp-credentials.json': '', 'azure.json': '' } });
  const pod = (deployment['spec'] as { template: { spec: { containers: { args: string[] }[] } } }).template.spec;
  return pod.containers.map((c) => c.args.filter((a) => a.startsWith('--zone-id-filter=')).map((a) => a.slice('--zone-id-filter='.length)));
}

const GCP_ZONES: GoogleZone[] = [
  { id: 'apps', dnsName: 'apps.example.com', visibility: 'public', numericId: '1111' },
  { id: 'corp', dnsName: 'corp.example.com', visibility: 'public', numericId: '2222' },
  { id: 'other', dnsName: 'other.example.net', visibility: 'public', numericId: '3333' },
];
const googleApi: GoogleDnsApi = {
  listZones: () => Promise.resolve(GCP_ZONES),
  listRRSets: () => Promise.resolve([]),
  createChange: () => Promise.resolve(),
};

const AZ = (rg: string, name: string): AzureZoneRef => ({
  name,
  resourceGroup: rg,
  id: `/subscriptions/s/resourceGroups/${rg}/providers/Microsoft.Network/dnszones/${name}`,
});
const AZ_ZONES = [AZ('rg', 'apps.example.com'), AZ('rg', 'corp.example.com'), AZ('rg', 'other.example.net')];
const azureApi: AzureDnsApi = {
  kind: 'public',
  listZones: () => Promise.resolve(AZ_ZONES),
  listRecordSets: () => Promise.resolve([]),
  putRecordSet: () => Promise.resolve(),
  deleteRecordSet: () => Promise.resolve(),
};

describe('zones for GCP and Azure: one container per zone, each provider keeps its zone only', () => {
  test('GCP: by numeric id and by zone name', async () => {
    const filters = zoneFilters({
      provider: { type: 'GCP', gcp: { credentials: { name: 'g' }, project: 'p' } },
      source: { type: 'Service' },
      zones: ['1111', 'corp'],
    });
    assert.deepEqual(filters, [['1111'], ['corp']]);
    const kept = [];
    for (const zoneIds of filters) {
      const p = new GoogleProvider({ api: googleApi, logger: silentLogger(), zoneIds });
      await p.records();
      kept.push(['apps.example.com', 'corp.example.com', 'other.example.net'].filter((z) => p.domainFilter().match(`x.${z}`)));
    }
    assert.deepEqual(kept, [['apps.example.com'], ['corp.example.com']]);
  });

  test('Azure: by ARM resource id', async () => {
    const ids = [AZ_ZONES[0]?.id ?? '', AZ_ZONES[1]?.id ?? ''];
    const filters = zoneFilters({ provider: { type: 'Azure', azure: { configFile: { name: 'a' } } }, source: { type: 'Service' }, zones: ids });
    assert.deepEqual(filters, [[ids[0]], [ids[1]]]);
    const kept = [];
    for (const zoneIds of filters) {
      const p = new AzureProvider({ api: azureApi, logger: silentLogger(), zoneIds });
      await p.records();
      kept.push(['apps.example.com', 'corp.example.com', 'other.example.net'].filter((z) => p.domainFilter().match(`x.${z}`)));
    }
    assert.deepEqual(kept, [['apps.example.com'], ['corp.example.com']]);
  });
});
