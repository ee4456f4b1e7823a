/**
 * external-dns's source flags end to end, as a user runs them: `hostwarden run --once` over a
 * manifests directory into the embedded store, then the zone files are read. Covers
 * --annotation-prefix, --min-ttl, --target-net-filter/--exclude-target-net, --nat64-networks,
 * --create-ptr with the record-type annotation and --compatibility.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.ts';

interface Service {
  name: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  ips: string[];
}

function service(s: Service): string {
  const map = (m: Record<string, string> | undefined): string =>
    Object.entries(m ?? {})
      .map(([k, v]) => `\n    ${k}: ${JSON.stringify(v)}`)
      .join('');
  return `apiVersion: v1
kind: Service
metadata:
  name: ${s.name}
  namespace: default
  annotations:${map(s.annotations) || ' {}'}
  labels:${map(s.labels) || ' {}'}
spec:
  type: LoadBalancer
status:
  loadBalancer:
    ingress:${s.ips.map((ip) => `\n      - ip: ${JSON.stringify(ip)}`).join('')}
`;
}

/** Records of every zone file as "name TTL TYPE value" lines, SOA and NS left out. */
async function records(data: string): Promise<string[]> {
  const out: string[] = [];
  for (const file of (await readdir(data)).filter((f) => f.endsWith('.zone'))) {
    let origin = '';
    for (const raw of (await readFile(join(data, file), 'utf8')).split('\n')) {
      const line = raw.replace(/;.*$/, '').trim();
      const o = /^\$ORIGIN\s+(\S+)/.exec(line);
      if (o !== null) origin = o[1] ?? '';
      if (line === '' || line.startsWith('$') || /\s(SOA|NS)\s/.test(line)) continue;
      const [name = '', ttl, , type, ...rest] = line.split(/\s+/);
      const fqdn = name === '@' ? origin : name.endsWith('.') ? name : `${name}.${origin}`;
      if (type === 'TXT') continue;
      out.push(`${fqdn.replace(/\.$/, '')} ${ttl} ${type} ${rest.join(' ')}`);
    }
  }
  return out.sort();
}

describe('source flags: manifests → wrappers → embedded zone files', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'hw-srcflags-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function run(
    name: string,
    files: Record<string, string>,
    flags: string[],
  ): Promise<{ records: string[]; stdout: string; stderr: string; code: number | null }> {
    const manifests = join(root, name, 'manifests');
    const data = join(root, name, 'data');
    await mkdir(manifests, { recursive: true });
    for (const [file, text] of Object.entries(files)) await writeFile(join(manifests, file), text);
    const result = await runCli(
      [
        'run',
        '--once',
        '--manifests-dir',
        manifests,
        '--embedded-data-dir',
        data,
        '--dns-listen',
        '',
        '--metrics-address',
        '',
        '--txt-owner-id',
        'src',
        '--log-format',
        'json',
        ...flags,
      ],
      { timeoutMs: 60_000 },
    );
    return { records: result.code === 0 ? await records(data) : [], stdout: result.stdout, stderr: result.stderr, code: result.code };
  }

  test('--annotation-prefix: only keys under the custom prefix are read; --min-ttl fills unset TTLs only', async () => {
    const r = await run(
      'prefix',
      {
        'a.yaml': service({
          name: 'a',
          annotations: { 'internal.example.com/hostname': 'a.example.org', 'internal.example.com/ttl': '30' },
          ips: ['192.0.2.1'],
        }),
        'b.yaml': service({ name: 'b', annotations: { 'internal.example.com/hostname': 'b.example.org' }, ips: ['192.0.2.2'] }),
        'c.yaml': service({ name: 'c', annotations: { 'external-dns.alpha.kubernetes.io/hostname': 'c.example.org' }, ips: ['192.0.2.3'] }),
      },
      ['--embedded-zone', 'example.org', '--annotation-prefix', 'internal.example.com/', '--min-ttl', '1m12s'],
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.records, ['a.example.org 30 A 192.0.2.1', 'b.example.org 72 A 192.0.2.2']);
  });

  test('--target-net-filter, --exclude-target-net and --nat64-networks', async () => {
    const r = await run(
      'nets',
      {
        'a.yaml': service({ name: 'a', annotations: { 'external-dns.kubernetes.io/hostname': 'a.example.org' }, ips: ['10.1.0.1', '10.2.0.1', '192.0.2.1'] }),
        'b.yaml': service({ name: 'b', annotations: { 'external-dns.kubernetes.io/hostname': 'b.example.org' }, ips: ['192.0.2.2'] }),
        'v6.yaml': service({ name: 'v6', annotations: { 'external-dns.kubernetes.io/hostname': 'v6.example.org' }, ips: ['64:ff9b::a01:203', 'fd00::1'] }),
      },
      [
        '--embedded-zone',
        'example.org',
        '--target-net-filter',
        '10.0.0.0/8',
        '--target-net-filter',
        '64:ff9b::/96',
        '--exclude-target-net',
        '10.2.0.0/16',
        '--nat64-networks',
        '64:ff9b::/96',
      ],
    );
    assert.equal(r.code, 0, r.stderr);
    // NAT64 runs before the filter, as in external-dns: 10.1.2.3 comes from the AAAA and passes 10.0.0.0/8.
    assert.deepEqual(r.records, ['a.example.org 300 A 10.1.0.1', 'v6.example.org 300 A 10.1.2.3', 'v6.example.org 300 AAAA 64:ff9b::a01:203']);
  });

  test('--create-ptr and the record-type annotation: PTR records in the reverse zone', async () => {
    const files = {
      'a.yaml': service({ name: 'a', annotations: { 'external-dns.kubernetes.io/hostname': 'a.example.org' }, ips: ['192.0.2.1'] }),
      'b.yaml': service({
        name: 'b',
        annotations: { 'external-dns.kubernetes.io/hostname': 'b.example.org', 'external-dns.kubernetes.io/record-type': 'ptr' },
        ips: ['192.0.2.2'],
      }),
      'c.yaml': service({
        name: 'c',
        annotations: { 'external-dns.kubernetes.io/hostname': 'c.example.org', 'external-dns.kubernetes.io/record-type': '' },
        ips: ['192.0.2.3'],
      }),
    };
    const zones = ['--embedded-zone', 'example.org', '--embedded-zone', '2.0.192.in-addr.arpa', '--managed-record-types', 'A,AAAA,CNAME,PTR'];
    const optIn = await run('ptr-annotation', files, zones);
    assert.equal(optIn.code, 0, optIn.stderr);
    assert.deepEqual(
      optIn.records.filter((l) => l.includes(' PTR ')),
      ['2.2.0.192.in-addr.arpa 300 PTR b.example.org.'],
    );
    const all = await run('ptr-default', files, [...zones, '--create-ptr']);
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(
      all.records.filter((l) => l.includes(' PTR ')),
      ['1.2.0.192.in-addr.arpa 300 PTR a.example.org.', '2.2.0.192.in-addr.arpa 300 PTR b.example.org.'],
    );
    const refused = await run('ptr-unmanaged', files, ['--embedded-zone', 'example.org', '--create-ptr']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /--create-ptr requires PTR in --managed-record-types/);
  });

  test('--compatibility molecule and kops-dns-controller publish legacy annotations', async () => {
    const files = {
      'molecule.yaml': service({ name: 'm', annotations: { domainName: 'm.example.org' }, labels: { dns: 'route53' }, ips: ['192.0.2.7'] }),
      'kops.yaml': service({ name: 'k', annotations: { 'dns.alpha.kubernetes.io/external': 'k.example.org' }, ips: ['192.0.2.8'] }),
    };
    const molecule = await run('molecule', files, ['--embedded-zone', 'example.org', '--compatibility', 'molecule']);
    assert.equal(molecule.code, 0, molecule.stderr);
    assert.deepEqual(molecule.records, ['m.example.org 300 A 192.0.2.7']);
    const kops = await run('kops', files, ['--embedded-zone', 'example.org', '--compatibility', 'kops-dns-controller']);
    assert.equal(kops.code, 0, kops.stderr);
    assert.deepEqual(kops.records, ['k.example.org 300 A 192.0.2.8']);
  });

  test('--prefer-alias on the embedded provider: CNAMEs stay CNAMEs and a second run changes nothing', async () => {
    const files = {
      'c.yaml': service({
        name: 'c',
        annotations: { 'external-dns.kubernetes.io/hostname': 'c.example.org', 'external-dns.kubernetes.io/target': 'lb.example.net' },
        ips: [],
      }),
    };
    const flags = ['--embedded-zone', 'example.org', '--prefer-alias', '--log-format', 'json'];
    const first = await run('alias-embedded', files, flags);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.records, ['c.example.org 300 CNAME lb.example.net.']);
    const second = await run('alias-embedded', files, flags);
    assert.equal(second.code, 0, second.stderr);
    const summary = (second.stdout + second.stderr).split('\n').find((l) => l.includes('"update"'));
    assert.match(summary ?? '', /"update":0/, second.stdout + second.stderr);
  });
});
