/**
 * `hostwarden run --once` with a DNSEndpoint manifest of NAPTR and DNAME records, as the crd
 * tutorial of external-dns writes them: with --managed-record-types naming the types they reach
 * the embedded zone file with their ownership records; a NAPTR target without the trailing dot
 * is a problem naming the entry, and the rest is published.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.ts';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'hw-naptr-cli-'));
  await mkdir(join(root, 'manifests'));
  await writeFile(
    join(root, 'manifests', 'records.yaml'),
    `apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: sip
  namespace: default
spec:
  endpoints:
    - dnsName: _sip._udp.example.org
      recordType: NAPTR
      recordTTL: 180
      targets:
        - '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.org!" .'
        - '102 10 "S" "SIP+D2T" "" _sip._tcp.example.org.'
    - dnsName: old.example.org
      recordType: DNAME
      targets: [new.example.net.]
    - dnsName: bad.example.org
      recordType: NAPTR
      targets: ['100 10 "S" "SIP+D2U" "" _sip._udp.example.org']
`,
  );
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('NAPTR and DNAME from a DNSEndpoint reach the zone file with ownership records; a bad target is a problem', async () => {
  const r = await runCli([
    'run',
    '--once',
    '--manifests-dir',
    join(root, 'manifests'),
    '--embedded-data-dir',
    join(root, 'data'),
    '--embedded-zone',
    'example.org',
    '--managed-record-types',
    'A,AAAA,CNAME,NAPTR,DNAME',
    '--txt-owner-id',
    'hw-test',
    '--metrics-address',
    '',
    '--log-format',
    'json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const zone = await readFile(join(root, 'data', 'example.org.zone'), 'utf8');
  assert.match(zone, /^_sip\._udp\.example\.org\. 180 IN NAPTR 100 10 "u" "E2U\+sip" "!\^\.\*\$!sip:info@example\.org!" \.$/m);
  assert.match(zone, /^_sip\._udp\.example\.org\. 180 IN NAPTR 102 10 "S" "SIP\+D2T" "" _sip\._tcp\.example\.org\.$/m);
  assert.match(zone, /^old\.example\.org\. 300 IN DNAME new\.example\.net\.$/m);
  assert.match(
    zone,
    /^naptr-_sip\._udp\.example\.org\. \d+ IN TXT "heritage=external-dns,external-dns\/owner=hw-test,external-dns\/resource=crd\/default\/sip"$/m,
  );
  assert.match(zone, /^dname-old\.example\.org\. \d+ IN TXT /m);
  assert.doesNotMatch(zone, /bad\.example\.org/);
  // The problem names the object, the entry's line and what is wrong.
  assert.match(r.stderr, /DNSEndpoint\/default\/sip \(.*records\.yaml:17\): skipped: bad\.example\.org NAPTR: target .* must be an absolute name ending in/);
});
