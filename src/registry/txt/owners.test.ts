import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { OwnersByName } from './owners.ts';
import type { Owner } from './owners.ts';

function owner(recordType: string, setIdentifier: string, who: string): Owner {
  return { recordType, setIdentifier, labels: { owner: who }, txt: newEndpoint({ dnsName: 'x', recordType: 'TXT', targets: ['"x"'] }) };
}

describe('OwnersByName', () => {
  test('by name regardless of case, then exact type and set identifier; the last one read wins', () => {
    const owners = new OwnersByName();
    owners.set('www.example.org', owner('A', '', 'a'));
    owners.set('WWW.example.org', owner('', '', 'old'));
    owners.set('www.example.org', owner('A', 'eu', 'a-eu'));
    owners.set('www.example.org', owner('AAAA', '', 'aaaa'));
    owners.set('www.example.org', owner('A', 'eu', 'a-eu-2'));
    assert.equal(owners.get('Www.Example.org', 'A', '')?.labels.owner, 'a');
    assert.equal(owners.get('www.example.org', '', '')?.labels.owner, 'old');
    assert.equal(owners.get('www.example.org', 'A', 'eu')?.labels.owner, 'a-eu-2');
    assert.equal(owners.get('www.example.org', 'AAAA', '')?.labels.owner, 'aaaa');
    assert.equal(owners.get('www.example.org', 'CNAME', ''), undefined);
    assert.equal(owners.get('other.example.org', 'A', ''), undefined);

    owners.set('one.example.org', owner('A', '', 'first'));
    owners.set('ONE.example.org', owner('A', '', 'second'));
    assert.equal(owners.get('one.example.org', 'A', '')?.labels.owner, 'second');
  });
});
