import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderError } from '../../errors.ts';
import type { AzureDnsApi } from '../../provider/azure/record-sets.ts';
import { ConfigurationProblem } from '../backend.ts';
import { AzureDnsBackend, parseZoneId, toAzureRecordSet } from './azure.ts';

/** Answers every delete with `status`; records what was asked. */
function deletingApi(status: number, calls: string[]): AzureDnsApi {
  return {
    kind: 'public',
    listZones: () => Promise.resolve([{ resourceGroup: 'rg', name: 'example.org' }]),
    listRecordSets: () => Promise.resolve([]),
    putRecordSet: () => Promise.resolve(),
    deleteRecordSet: (zone, relative, type) => {
      calls.push(`${zone.resourceGroup}/${zone.name} ${relative} ${type}`);
      return Promise.reject(new ProviderError('azure', `HTTP ${status}`, { cause: { statusCode: status } }));
    },
  };
}

describe('azure backends', () => {
  test('record sets: one records field per type, TXT split at 255 bytes, CNAME without the trailing dot', () => {
    assert.deepEqual(toAzureRecordSet({ name: 'a.example.org', type: 'A', ttl: 60, values: ['192.0.2.1', '192.0.2.2'] }), {
      ttl: 60,
      aRecords: [{ ipv4Address: '192.0.2.1' }, { ipv4Address: '192.0.2.2' }],
    });
    assert.deepEqual(toAzureRecordSet({ name: 'a.example.org', type: 'AAAA', ttl: 60, values: ['2001:db8::1'] }).aaaaRecords, [{ ipv6Address: '2001:db8::1' }]);
    assert.deepEqual(toAzureRecordSet({ name: 'a.example.org', type: 'CNAME', ttl: 60, values: ['lb.example.net.'] }).cnameRecord, { cname: 'lb.example.net' });
    assert.deepEqual(toAzureRecordSet({ name: 'a.example.org', type: 'TXT', ttl: 60, values: ['x'.repeat(300), 'a"b'] }).txtRecords, [
      { value: ['x'.repeat(255), 'x'.repeat(45)] },
      { value: ['a"b'] },
    ]);
  });

  test('zone ids are <resourceGroup>/<zone>', () => {
    assert.deepEqual(parseZoneId('dns-rg/Example.org.'), { resourceGroup: 'dns-rg', name: 'example.org' });
    assert.throws(
      () => parseZoneId('example.org'),
      (e: unknown) => e instanceof ConfigurationProblem && /not <resourceGroup>\/<zoneName>/.test(e.message),
    );
  });

  test('zones are listed as <resourceGroup>/<zone>; a delete in a zone that is gone (404) succeeds, other errors do not', async () => {
    const calls: string[] = [];
    const gone = new AzureDnsBackend(deletingApi(404, calls));
    assert.deepEqual(await gone.listZones(), [{ id: 'rg/example.org', name: 'example.org' }]);
    await gone.remove('rg/example.org', { name: 'example.org', type: 'TXT', ttl: 60, values: ['x'] });
    assert.deepEqual(calls, ['rg/example.org @ TXT']);
    await assert.rejects(
      gone.upsert('rg/example.org', { name: 'www.example.net', type: 'A', ttl: 60, values: ['192.0.2.1'] }),
      (e: unknown) => e instanceof ConfigurationProblem && /not in zone rg\/example.org/.test(e.message),
    );
    await assert.rejects(
      new AzureDnsBackend(deletingApi(403, calls)).remove('rg/example.org', { name: 'a.example.org', type: 'A', ttl: 60, values: ['192.0.2.1'] }),
      /HTTP 403/,
    );
  });
});
