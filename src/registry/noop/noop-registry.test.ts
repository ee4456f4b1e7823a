import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { emptyChanges } from '../../plan/changes.ts';
import { FakeProvider } from '../../../test/support/fake-provider.ts';
import { NoopRegistry } from './noop-registry.ts';

describe('NoopRegistry', () => {
  test('passes records and changes through without ownership records', async () => {
    const txt = newEndpoint({ dnsName: 'a-www.example.org', recordType: 'TXT', targets: ['"heritage=external-dns,external-dns/owner=x"'] });
    const provider = new FakeProvider([txt]);
    const registry = NoopRegistry.fromConfig({}, { provider });
    assert.equal(registry.ownerId, '');
    assert.deepEqual(await registry.records(), [txt]);

    const www = newEndpoint({ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1'] });
    await registry.applyChanges({ ...emptyChanges(), create: [www] });
    assert.equal(provider.batches.length, 1);
    assert.deepEqual(provider.batches[0]?.create, [www]);
    assert.equal(provider.list().length, 2);
    assert.deepEqual(await registry.adjustEndpoints([www]), [www]);
    assert.equal(registry.domainFilter().match('www.example.org'), true);
  });
});
