import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.ts';

let dir: string;
const records = [
  { dnsName: 'www.example.org', targets: ['192.0.2.1'], recordType: 'A', labels: { owner: 'me', resource: 'service/default/web' } },
  { dnsName: 'old.example.org', targets: ['192.0.2.9'], recordType: 'A', labels: { owner: 'me', resource: 'service/default/old' } },
  { dnsName: 'theirs.example.org', targets: ['192.0.2.7'], recordType: 'A', labels: { owner: 'cluster-b', resource: 'service/default/x' } },
  { dnsName: 'manual.example.org', targets: ['192.0.2.8'], recordType: 'A' },
];
const desired = [
  { dnsName: 'www.example.org', targets: ['192.0.2.2'], recordType: 'A', labels: { resource: 'service/default/web' } },
  { dnsName: 'new.example.org', targets: ['new-lb.example.net'], recordType: 'CNAME', recordTTL: 60, labels: { resource: 'ingress/default/app' } },
  { dnsName: 'theirs.example.org', targets: ['192.0.2.70'], recordType: 'A', labels: { resource: 'service/default/mine' } },
  { dnsName: 'manual.example.org', targets: ['2001:db8::1'], recordType: 'AAAA', labels: { resource: 'service/default/v6' } },
  { dnsName: 'outside.example.com', targets: ['192.0.2.3'], recordType: 'A', labels: { resource: 'service/default/out' } },
];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hw-plan-'));
  await writeFile(join(dir, 'records.json'), JSON.stringify(records));
  await writeFile(join(dir, 'desired.json'), JSON.stringify(desired));
});
after(async () => rm(dir, { recursive: true, force: true }));

const files = (): string[] => [
  '--records',
  join(dir, 'records.json'),
  '--desired',
  join(dir, 'desired.json'),
  '--txt-owner-id',
  'me',
  '--domain-filter',
  'example.org',
];

describe('hostwarden plan', () => {
  test('--output json prints the external-dns change set', async () => {
    const r = await runCli(['plan', ...files(), '--output', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout) as Record<string, { dnsName: string; targets: string[]; labels?: Record<string, string>; recordTTL?: number }[]>;
    assert.deepEqual(Object.keys(plan).sort(), ['create', 'delete', 'updateNew', 'updateOld']);
    assert.deepEqual(
      plan['create']?.map((e) => e.dnsName),
      ['new.example.org'],
    );
    assert.equal(plan['create']?.[0]?.labels?.['owner'], 'me');
    assert.equal(plan['create']?.[0]?.recordTTL, 60);
    assert.deepEqual(
      plan['updateNew']?.map((e) => [e.dnsName, e.targets]),
      [['www.example.org', ['192.0.2.2']]],
    );
    assert.deepEqual(
      plan['updateOld']?.map((e) => [e.dnsName, e.targets]),
      [['www.example.org', ['192.0.2.1']]],
    );
    assert.deepEqual(
      plan['delete']?.map((e) => e.dnsName),
      ['old.example.org'],
      'foreign and unowned records are never deleted',
    );
  });

  test('the empty owner id disables ownership checks', async () => {
    const r = await runCli(['plan', ...files(), '--txt-owner-id=', '--output', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout) as Record<string, { dnsName: string }[]>;
    assert.ok(plan['updateNew']?.some((e) => e.dnsName === 'theirs.example.org'));
  });

  test('upsert-only policy forbids deletes', async () => {
    const r = await runCli(['plan', ...files(), '--policy', 'upsert-only', '--output', 'json']);
    const plan = JSON.parse(r.stdout) as Record<string, unknown[]>;
    assert.deepEqual(plan['delete'], []);
  });

  test('text output is a readable diff with a summary', async () => {
    const r = await runCli(['plan', ...files()]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\+ new\.example\.org CNAME/m);
    assert.match(r.stdout, /^~ www\.example\.org A/m);
    assert.match(r.stdout, /^- old\.example\.org A/m);
    assert.match(r.stdout, /Plan: 1 to create, 1 to update, 1 to delete\./);
    assert.ok(!r.stdout.includes('\u001b['), 'no colour when NO_COLOR is set and stdout is not a terminal');
  });

  test('a bad input file is reported with the flag and the element', async () => {
    await writeFile(join(dir, 'bad.json'), JSON.stringify([{ dnsName: 'x.example.org', recordType: 'A', targets: ['not-an-ip'] }]));
    const r = await runCli(['plan', '--desired', join(dir, 'bad.json')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--desired .*bad\.json\[0\].*not-an-ip.*IPv4/);
  });

  test('unknown flags are an error naming the flag', async () => {
    const r = await runCli(['plan', '--no-such-flag']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown flag --no-such-flag/);
  });
});

describe('hostwarden explain', () => {
  const explain = async (name: string): Promise<string> => {
    const r = await runCli(['explain', name, ...files()]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };

  test('an update says which field changed', async () => {
    assert.match(await explain('www.example.org'), /update\s+A .*targets/);
  });
  test('a record owned by another owner is skipped, naming the owner', async () => {
    assert.match(await explain('theirs.example.org'), /skip\s+A.*cluster-b/);
  });
  test('an unowned record blocks other types at its name', async () => {
    assert.match(await explain('manual.example.org'), /skip\s+AAAA.*without an owner label/);
  });
  test('a name outside the domain filter is skipped with that reason', async () => {
    assert.match(await explain('outside.example.com'), /skip\s+A.*domain filter/);
  });
  test('a deletion says the record is no longer desired', async () => {
    assert.match(await explain('old.example.org'), /delete\s+A/);
  });
  test('a name nobody asks for says so', async () => {
    assert.match(await explain('nobody.example.org'), /nothing/);
  });
  test('explain needs a hostname', async () => {
    const r = await runCli(['explain', ...files()]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /explain needs a hostname/);
  });
});

describe('hostwarden plan --records with raw ownership TXT records (a zone dump)', () => {
  // What a zone written by external-dns looks like when dumped as is: the records without owner
  // labels, and the registry's TXT records beside them.
  const raw = [
    { dnsName: 'www.example.org', targets: ['192.0.2.1'], recordType: 'A' },
    { dnsName: 'a-www.example.org', targets: ['"heritage=external-dns,external-dns/owner=me,external-dns/resource=service/default/web"'], recordType: 'TXT' },
    { dnsName: 'old.example.org', targets: ['192.0.2.9'], recordType: 'A' },
    { dnsName: 'a-old.example.org', targets: ['"heritage=external-dns,external-dns/owner=me,external-dns/resource=service/default/old"'], recordType: 'TXT' },
  ];
  const wanted = [{ dnsName: 'www.example.org', targets: ['192.0.2.2'], recordType: 'A', labels: { resource: 'service/default/web' } }];
  const args = (): string[] => ['plan', '--records', join(dir, 'raw.json'), '--desired', join(dir, 'wanted.json'), '--txt-owner-id', 'me'];

  before(async () => {
    await writeFile(join(dir, 'raw.json'), JSON.stringify(raw));
    await writeFile(join(dir, 'wanted.json'), JSON.stringify(wanted));
  });

  test('warns that the records carry no owner labels and how to give the TXT records to the registry, instead of "No changes"', async () => {
    const r = await runCli(args());
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /No changes/);
    assert.match(r.stdout, /^Warning: --records .*raw\.json holds 2 ownership TXT records \(heritage=external-dns\)/m);
    assert.match(r.stdout, /none of its records carries an owner label/);
    assert.match(r.stdout, /"labels": \{"owner": "me"\}/);
    assert.match(r.stdout, /run plan without --records\/--desired against the provider/);
    assert.match(r.stdout, /Nothing planned, but not because the provider already holds the desired records/);
  });

  test('--output json stays JSON and the warning goes to stderr', async () => {
    const r = await runCli([...args(), '--output', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout) as Record<string, unknown[]>;
    assert.deepEqual(plan['updateNew'], []);
    assert.match(r.stderr, /holds 2 ownership TXT records/);
  });

  test('a file with owner labels gets no warning', async () => {
    const r = await runCli(['plan', ...files()]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /ownership TXT record/);
  });
});
