import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freezeEndpoint, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { decodeOwnershipValue } from './labels.ts';
import { OwnershipIndex, txtKey } from './ownership-index.ts';

const newIndex = (): OwnershipIndex => new OwnershipIndex((value) => decodeOwnershipValue(value, undefined));

function txt(dnsName: string, setIdentifier = '', value = '"heritage=external-dns,external-dns/owner=owner"'): Endpoint {
  return freezeEndpoint(newEndpoint({ dnsName, recordType: 'TXT', targets: [value], setIdentifier }));
}

describe('OwnershipIndex', () => {
  test('TXT records are found by name without regard to case, and by exact set identifier', () => {
    const index = newIndex();
    const mixed = txt('A-Www.Example.org');
    index.addTXT(mixed);
    assert.equal(index.getTXT('a-www.example.org', '')?.txt, mixed, 'the very record read is kept');
    assert.equal(index.getTXT('A-WWW.EXAMPLE.ORG', '')?.labels.owner, 'owner');
    assert.equal(index.getTXT('a-www.example.org', 'eu'), undefined);
    index.removeTXT('a-WWW.example.org', '');
    assert.equal(index.getTXT('a-www.example.org', ''), undefined);
  });

  test('a name holds one TXT record per set identifier; adding again replaces it', () => {
    const index = newIndex();
    const plain = txt('a-www.example.org');
    const eu = txt('a-www.example.org', 'eu');
    const us = txt('a-www.example.org', 'us', '"heritage=external-dns,external-dns/owner=other"');
    index.addTXT(plain);
    index.addTXT(eu);
    index.addTXT(us);
    assert.equal(index.getTXT('a-www.example.org', 'eu')?.txt, eu);
    assert.equal(index.getTXT('a-www.example.org', 'us')?.labels.owner, 'other');

    const eu2 = txt('A-WWW.example.org', 'eu', '"heritage=external-dns,external-dns/owner=new"');
    index.addTXT(eu2);
    assert.equal(index.getTXT('a-www.example.org', 'eu')?.txt, eu2);

    index.removeTXT('a-www.example.org', 'eu');
    index.removeTXT('a-www.example.org', 'eu');
    assert.equal(index.getTXT('a-www.example.org', 'eu'), undefined);
    assert.equal(index.getTXT('a-www.example.org', '')?.txt, plain);
    assert.equal(index.getTXT('a-www.example.org', 'us')?.txt, us);
    index.removeTXT('a-www.example.org', 'us');
    index.removeTXT('a-www.example.org', 'missing');
    assert.equal(index.getTXT('a-www.example.org', '')?.txt, plain);
    index.removeTXT('a-www.example.org', '');
    assert.equal(index.getTXT('a-www.example.org', ''), undefined);
  });

  test('keeps unfrozen TXT records as copies, and decodes the labels from the value when asked', () => {
    const index = newIndex();
    const loose = newEndpoint({
      dnsName: 'a-www.example.org',
      recordType: 'TXT',
      targets: ['"heritage=external-dns,external-dns/owner=owner,external-dns/resource=service/default/web"'],
    });
    index.addTXT(loose);
    const kept = index.getTXT('a-www.example.org', '');
    assert.notEqual(kept?.txt, loose);
    assert.deepEqual(kept?.txt, loose);
    assert.deepEqual(kept?.labels, { owner: 'owner', resource: 'service/default/web' });
  });

  test('old-format TXT records: users, lookup by key while used, release', () => {
    const index = newIndex();
    const old = txt('Www.example.org');
    index.addTXT(old);
    const key = txtKey(old.dnsName, old.setIdentifier);
    index.addOldFormatUser(old, 'www.example.org\u0000A\u0000');
    index.addOldFormatUser(old, 'www.example.org\u0000CNAME\u0000');
    assert.equal(index.oldFormatRecordCount, 2);
    assert.equal(index.oldFormatTXTOf('www.example.org\u0000A\u0000'), key);
    assert.deepEqual([...index.oldFormatUsersOf(key)].sort(), ['www.example.org\u0000A\u0000', 'www.example.org\u0000CNAME\u0000']);
    assert.equal(index.getTXTByKey(key)?.txt, old);
    assert.deepEqual(index.dependentRecordKeys().sort(), ['www.example.org\u0000A\u0000', 'www.example.org\u0000CNAME\u0000']);

    index.releaseOldFormat('www.example.org\u0000A\u0000');
    index.releaseOldFormat('www.example.org\u0000A\u0000');
    assert.deepEqual([...index.oldFormatUsersOf(key)], ['www.example.org\u0000CNAME\u0000']);
    index.releaseOldFormat('www.example.org\u0000CNAME\u0000');
    assert.equal(index.oldFormatRecordCount, 0);
    assert.equal(index.oldFormatUsersOf(key).size, 0);
    assert.equal(index.getTXTByKey(key), undefined, 'no longer looked up once nothing depends on it');
    assert.equal(index.getTXT('www.example.org', '')?.txt, old);
  });
});
