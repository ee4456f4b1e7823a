/**
 * The coredns provider against a real etcd 3.4: the keys and JSON values it writes are the ones
 * CoreDNS's etcd plugin reads (docs/providers/coredns.md), it reads what external-dns wrote, and a
 * full sync through the TXT registry creates, keeps and deletes exactly what it owns.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../src/endpoint/endpoint.ts';
import { ProviderError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { CoreDnsProvider } from '../../src/provider/coredns/coredns.ts';
import { EtcdClient } from '../../src/provider/coredns/etcd-client.ts';
import { emptyChanges } from '../../src/plan/changes.ts';
import type { Changes } from '../../src/plan/changes.ts';
import { freePort } from '../support/bind.ts';
import { runCli } from '../support/cli.ts';
import type { CliResult } from '../support/cli.ts';
import { etcdAvailable, startEtcd } from '../support/etcd.ts';
import type { EtcdServer } from '../support/etcd.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { testController } from '../support/controller.ts';
import { FakeSource } from '../support/fakes.ts';

const skip = !(await etcdAvailable()) && 'etcd is not installed (apt-get install etcd-server)';

function ep(dnsName: string, recordType: RecordType, targets: string[], recordTTL = 0): Endpoint {
  return newEndpoint({ dnsName, recordType, targets, recordTTL });
}

function changes(part: Partial<Changes>): Changes {
  return { ...emptyChanges(), ...part };
}

function find(records: Endpoint[], name: string, type: string): Endpoint | undefined {
  return records.find((r) => r.dnsName === name && r.recordType === type);
}

describe('coredns provider against etcd', { skip }, () => {
  let etcd: EtcdServer;
  let client: EtcdClient;
  let provider: CoreDnsProvider;

  const keysUnder = async (prefix: string): Promise<Record<string, unknown>> => {
    const out: Record<string, unknown> = {};
    for (const kv of await client.range(prefix)) out[kv.key] = JSON.parse(kv.value);
    return out;
  };

  before(async () => {
    etcd = await startEtcd();
    client = new EtcdClient({ urls: [etcd.url], timeoutMs: 5000 });
    provider = new CoreDnsProvider({ store: client, logger: silentLogger(), domainFilter: new DomainFilter({ include: ['example.test'] }) });
  });
  after(async () => {
    await etcd?.stop();
  });

  test('writes one SkyDNS key per value, under the reversed name, as CoreDNS reads them', async () => {
    await provider.applyChanges(
      changes({
        create: [
          ep('www.example.test', 'A', ['192.0.2.1', '192.0.2.2'], 120),
          ep('v6.example.test', 'AAAA', ['2001:DB8:0::1']),
          ep('alias.example.test', 'CNAME', ['www.example.test.']),
          ep('a-www.example.test', 'TXT', ['"heritage=external-dns,external-dns/owner=default"']),
        ],
      }),
    );
    const www = await keysUnder('/skydns/test/example/www/');
    assert.equal(Object.keys(www).length, 2);
    for (const [key, value] of Object.entries(www)) {
      assert.match(key, /^\/skydns\/test\/example\/www\/[0-9a-f]{8}$/);
      assert.ok(['192.0.2.1', '192.0.2.2'].includes((value as { host: string }).host));
      assert.deepEqual(Object.keys(value as object), ['host', 'ttl', 'targetstrip']);
      assert.equal((value as { ttl: number }).ttl, 120);
      assert.equal((value as { targetstrip: number }).targetstrip, 1);
    }
    assert.deepEqual(Object.values(await keysUnder('/skydns/test/example/v6/')), [{ host: '2001:db8::1', targetstrip: 1 }]);
    assert.deepEqual(Object.values(await keysUnder('/skydns/test/example/alias/')), [{ host: 'www.example.test', targetstrip: 1 }]);
    // A service with only `text` is what CoreDNS answers TXT queries from.
    assert.deepEqual(Object.values(await keysUnder('/skydns/test/example/a-www/')), [
      { text: 'heritage=external-dns,external-dns/owner=default', targetstrip: 1 },
    ]);

    const listed = await provider.records();
    assert.deepEqual(find(listed, 'www.example.test', 'A')?.targets.sort(), ['192.0.2.1', '192.0.2.2']);
    assert.equal(find(listed, 'www.example.test', 'A')?.recordTTL, 120);
    assert.deepEqual(find(listed, 'v6.example.test', 'AAAA')?.targets, ['2001:db8::1']);
    assert.deepEqual(find(listed, 'alias.example.test', 'CNAME')?.targets, ['www.example.test']);
    assert.deepEqual(find(listed, 'a-www.example.test', 'TXT')?.targets, ['heritage=external-dns,external-dns/owner=default']);
  });

  test('an update keeps the keys of kept values, and a delete leaves nothing under the name', async () => {
    const before = await keysUnder('/skydns/test/example/www/');
    const keep = Object.entries(before).find(([, v]) => (v as { host: string }).host === '192.0.2.1')?.[0];
    const listed = await provider.records();
    await provider.applyChanges(
      changes({
        updateOld: [find(listed, 'www.example.test', 'A') as Endpoint],
        updateNew: [ep('www.example.test', 'A', ['192.0.2.1', '192.0.2.3'], 120)],
      }),
    );
    const after = await keysUnder('/skydns/test/example/www/');
    assert.equal(Object.keys(after).length, 2);
    assert.ok(keep !== undefined && keep in after, 'the key of the kept value is unchanged');
    assert.deepEqual(
      Object.values(after)
        .map((v) => (v as { host: string }).host)
        .sort(),
      ['192.0.2.1', '192.0.2.3'],
    );

    const now = await provider.records();
    await provider.applyChanges(changes({ delete: [find(now, 'www.example.test', 'A') as Endpoint, find(now, 'a-www.example.test', 'TXT') as Endpoint] }));
    assert.deepEqual(await keysUnder('/skydns/test/example/www/'), {});
    assert.deepEqual(await keysUnder('/skydns/test/example/a-www/'), {});
    assert.deepEqual(await keysUnder('/skydns/test/example/www'), {}, 'no key at or below the name remains');
  });

  test('reads what external-dns wrote: text beside a host, targetstrip, group, keys without a random label', async () => {
    await client.put(
      '/skydns/test/example/legacy/1a2b3c4d',
      JSON.stringify({ host: '10.0.0.1', text: 'heritage=external-dns,external-dns/owner=old', ttl: 60, targetstrip: 1, group: 'g1' }),
    );
    await client.put('/skydns/test/example/plain', JSON.stringify({ host: '10.0.0.2' }));
    await client.put('/skydns/test/example/garbage/x', 'not json');
    const listed = await provider.records();
    const legacy = find(listed, 'legacy.example.test', 'A');
    assert.deepEqual(legacy?.targets, ['10.0.0.1']);
    assert.equal(legacy?.recordTTL, 60);
    assert.deepEqual(legacy?.providerSpecific, [{ name: 'coredns/group', value: 'g1' }]);
    assert.deepEqual(find(listed, 'legacy.example.test', 'TXT')?.targets, ['heritage=external-dns,external-dns/owner=old']);
    assert.deepEqual(find(listed, 'plain.example.test', 'A')?.targets, ['10.0.0.2']);

    // Deleting the TXT keeps the host on the same key, and its other fields.
    await provider.applyChanges(changes({ delete: [find(listed, 'legacy.example.test', 'TXT') as Endpoint] }));
    assert.deepEqual(await keysUnder('/skydns/test/example/legacy/'), {
      '/skydns/test/example/legacy/1a2b3c4d': { host: '10.0.0.1', ttl: 60, targetstrip: 1, group: 'g1' },
    });
  });

  test('a wildcard and its a-*.apps ownership TXT: keys under the * and a-* labels, read back, updated, deleted', async () => {
    const registry = new TXTRegistry(provider, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
    const wildcard = (target: string): Endpoint =>
      newEndpoint({ dnsName: '*.apps.example.test', recordType: 'A', targets: [target], labels: { resource: 'ingress/default/apps' } });
    const source = new FakeSource([wildcard('192.0.2.80')]);
    const controller = testController(source, registry, { domainFilter: new DomainFilter({ include: ['apps.example.test'] }) });
    assert.equal((await controller.runOnce()).applied, true);
    const values = (tree: Record<string, unknown>): unknown[] => Object.values(tree);
    assert.deepEqual(values(await keysUnder('/skydns/test/example/apps/*/')), [{ host: '192.0.2.80', targetstrip: 1 }]);
    assert.deepEqual(values(await keysUnder('/skydns/test/example/apps/a-*/')), [
      { text: 'heritage=external-dns,external-dns/owner=hw,external-dns/resource=ingress/default/apps', targetstrip: 1 },
    ]);
    assert.ok(find(await provider.records(), 'a-*.apps.example.test', 'TXT') !== undefined);
    assert.equal((await controller.runOnce()).applied, false, 'read back and owned: nothing to do');
    source.desired = [wildcard('192.0.2.81')];
    assert.equal((await controller.runOnce()).applied, true);
    assert.deepEqual(values(await keysUnder('/skydns/test/example/apps/*/')), [{ host: '192.0.2.81', targetstrip: 1 }]);
    source.desired = [];
    await controller.runOnce();
    assert.deepEqual(await keysUnder('/skydns/test/example/apps/'), {});
  });

  test('a wildcard external-dns wrote to etcd (keys .../*/<id> and .../a-*/<id>) is owned and updated', async () => {
    const value = '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=service/default/legacy"';
    await client.put('/skydns/test/example/wild/*/6f1c2b3a', JSON.stringify({ host: '192.0.2.90', ttl: 300, targetstrip: 1 }));
    await client.put('/skydns/test/example/wild/a-*/0d9e8f7a', JSON.stringify({ text: value, ttl: 300, targetstrip: 1 }));
    const registry = new TXTRegistry(provider, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
    assert.equal(find(await registry.records(), '*.wild.example.test', 'A')?.labels.owner, 'hw');
    const desired = newEndpoint({
      dnsName: '*.wild.example.test',
      recordType: 'A',
      targets: ['192.0.2.91'],
      recordTTL: 300,
      labels: { resource: 'service/default/legacy' },
    });
    const controller = testController(new FakeSource([desired]), registry, { domainFilter: new DomainFilter({ include: ['wild.example.test'] }) });
    assert.equal((await controller.runOnce()).applied, true);
    assert.deepEqual(Object.values(await keysUnder('/skydns/test/example/wild/*/')), [{ host: '192.0.2.91', ttl: 300, targetstrip: 1 }]);
    assert.deepEqual(
      await keysUnder('/skydns/test/example/wild/a-*/'),
      { '/skydns/test/example/wild/a-*/0d9e8f7a': { text: value, ttl: 300, targetstrip: 1 } },
      'TXT unchanged',
    );
    await client.txn([], [{ deletePrefix: '/skydns/test/example/wild/' }]);
  });

  test('a name outside the domain filter is not listed', async () => {
    await client.put('/skydns/org/elsewhere/www/abcdef01', JSON.stringify({ host: '10.9.9.9', targetstrip: 1 }));
    assert.equal(
      (await provider.records()).some((r) => r.dnsName.endsWith('elsewhere.org')),
      false,
    );
  });

  test('unsupported types fail on their own; the rest is applied', async () => {
    await assert.rejects(
      provider.applyChanges(changes({ create: [ep('mx.example.test', 'MX', ['10 mail.example.test']), ep('ok.example.test', 'A', ['192.0.2.50'])] })),
      (err: unknown) => {
        assert.ok(err instanceof ProviderError);
        assert.equal(err.transient, false);
        assert.match(err.message, /mx\.example\.test MX/);
        return true;
      },
    );
    assert.deepEqual(find(await provider.records(), 'ok.example.test', 'A')?.targets, ['192.0.2.50']);
  });
});

describe('coredns with etcd down', () => {
  test('records() and applyChanges() fail with a transient error', async () => {
    const port = await freePort();
    const p = new CoreDnsProvider({ store: new EtcdClient({ urls: [`http://127.0.0.1:${port}`], timeoutMs: 1000 }), logger: silentLogger() });
    await assert.rejects(p.records(), (err: unknown) => err instanceof ProviderError && err.transient && /ECONNREFUSED/.test(err.message));
    await assert.rejects(
      p.applyChanges(changes({ create: [ep('x.example.test', 'A', ['192.0.2.1'])] })),
      (err: unknown) => err instanceof ProviderError && err.transient,
    );
  });
});

describe('hostwarden run --once --provider coredns (manifests → etcd)', { skip }, () => {
  let etcd: EtcdServer;
  let dir: string;

  before(async () => {
    etcd = await startEtcd();
    dir = await mkdtemp(join(tmpdir(), 'hw-coredns-run-'));
  });
  after(async () => {
    await etcd?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const run = (): Promise<CliResult> =>
    runCli(
      [
        'run',
        '--once',
        '--provider',
        'coredns',
        '--manifests-dir',
        dir,
        '--domain-filter',
        'example.test',
        '--txt-owner-id',
        'hw-test',
        '--metrics-address',
        '',
        '--log-format',
        'json',
      ],
      { env: { ETCD_URLS: etcd.url } },
    );

  test('ownership round trip: creates records and ownership TXT, leaves foreign keys, deletes what it owns', async () => {
    const client = new EtcdClient({ urls: [etcd.url], timeoutMs: 5000 });
    await client.put('/skydns/test/example/theirs/00000001', JSON.stringify({ host: '203.0.113.1', targetstrip: 1 }));
    await writeFile(
      join(dir, 'web.yaml'),
      `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
  annotations:
    external-dns.alpha.kubernetes.io/hostname: web.example.test,theirs.example.test
spec:
  type: LoadBalancer
status:
  loadBalancer:
    ingress:
      - ip: 192.0.2.10
`,
    );
    const first = await run();
    assert.equal(first.code, 0, first.stderr);
    const values = async (prefix: string): Promise<unknown[]> => (await client.range(prefix)).map((kv) => JSON.parse(kv.value) as unknown);
    assert.deepEqual(await values('/skydns/test/example/web/'), [{ host: '192.0.2.10', targetstrip: 1 }]);
    const owner = (await values('/skydns/test/example/a-web/')) as { text: string }[];
    assert.match(owner[0]?.text ?? '', /^heritage=external-dns,external-dns\/owner=hw-test,external-dns\/resource=service\/default\/web/);
    assert.deepEqual(await values('/skydns/test/example/theirs/'), [{ host: '203.0.113.1', targetstrip: 1 }]);

    const second = await run();
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /coredns records written/, 'a second sync has nothing to change');

    await rm(join(dir, 'web.yaml'));
    const third = await run();
    assert.equal(third.code, 0, third.stderr);
    assert.deepEqual(await values('/skydns/test/example/web/'), []);
    assert.deepEqual(await values('/skydns/test/example/a-web/'), []);
    assert.deepEqual(await values('/skydns/test/example/theirs/'), [{ host: '203.0.113.1', targetstrip: 1 }]);
  });
});

describe('hostwarden run --once --provider skydns --coredns-strictly-owned (values carry the owner id)', { skip }, () => {
  let etcd: EtcdServer;
  let dir: string;

  before(async () => {
    etcd = await startEtcd();
    dir = await mkdtemp(join(tmpdir(), 'hw-coredns-strict-'));
  });
  after(async () => {
    await etcd?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const run = (): Promise<CliResult> =>
    runCli(
      [
        'run',
        '--once',
        '--provider',
        'skydns',
        '--coredns-strictly-owned',
        '--coredns-prefix',
        '/strict/',
        '--manifests-dir',
        dir,
        '--domain-filter',
        'example.test',
        '--txt-owner-id',
        'hw-strict',
        '--metrics-address',
        '',
        '--log-format',
        'json',
      ],
      { env: { ETCD_URLS: etcd.url } },
    );

  test('writes "owner" into every value, never reads, changes or deletes another owner\'s values', async () => {
    const client = new EtcdClient({ urls: [etcd.url], timeoutMs: 5000 });
    const foreign = { host: '203.0.113.9', targetstrip: 1, owner: 'other-cluster' };
    const unowned = { host: '203.0.113.8', targetstrip: 1 };
    await client.put('/strict/test/example/shared/0000000a', JSON.stringify(foreign));
    await client.put('/strict/test/example/legacy/0000000b', JSON.stringify(unowned));
    await writeFile(
      join(dir, 'app.yaml'),
      `apiVersion: v1
kind: Service
metadata:
  name: app
  namespace: default
  annotations:
    external-dns.alpha.kubernetes.io/hostname: app.example.test,shared.example.test,legacy.example.test
spec:
  type: LoadBalancer
status:
  loadBalancer:
    ingress:
      - ip: 192.0.2.20
`,
    );
    const values = async (prefix: string): Promise<unknown[]> => (await client.range(prefix)).map((kv) => JSON.parse(kv.value) as unknown);
    const first = await run();
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(await values('/strict/test/example/app/'), [{ host: '192.0.2.20', targetstrip: 1, owner: 'hw-strict' }]);
    const txt = (await values('/strict/test/example/a-app/')) as { text: string; owner: string }[];
    assert.equal(txt[0]?.owner, 'hw-strict');
    // The other owners' values are invisible: left alone, and ours are added beside them.
    const shared = await values('/strict/test/example/shared/');
    assert.deepEqual(shared.length, 2);
    assert.ok(shared.some((v) => JSON.stringify(v) === JSON.stringify(foreign)));
    assert.ok(shared.some((v) => JSON.stringify(v) === JSON.stringify({ host: '192.0.2.20', targetstrip: 1, owner: 'hw-strict' })));
    assert.ok((await values('/strict/test/example/legacy/')).some((v) => JSON.stringify(v) === JSON.stringify(unowned)));

    const second = await run();
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /coredns records written/, 'a second sync has nothing to change');

    await rm(join(dir, 'app.yaml'));
    const third = await run();
    assert.equal(third.code, 0, third.stderr);
    assert.deepEqual(await values('/strict/test/example/app/'), []);
    assert.deepEqual(await values('/strict/test/example/a-app/'), []);
    assert.deepEqual(await values('/strict/test/example/shared/'), [foreign]);
    assert.deepEqual(await values('/strict/test/example/legacy/'), [unowned]);
  });
});

async function etcdPost(url: string, path: string, body: unknown): Promise<number> {
  const res = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  await res.text();
  return res.status;
}

describe('coredns against etcd with authentication', { skip }, () => {
  let etcd: EtcdServer;

  before(async () => {
    etcd = await startEtcd();
    assert.equal(await etcdPost(etcd.url, '/v3/auth/user/add', { name: 'root', password: 'secret-pw' }), 200);
    assert.equal(await etcdPost(etcd.url, '/v3/auth/user/grant', { user: 'root', role: 'root' }), 200);
    assert.equal(await etcdPost(etcd.url, '/v3/auth/enable', {}), 200);
  });
  after(async () => {
    await etcd?.stop();
  });

  test('ETCD_USERNAME/ETCD_PASSWORD authenticate; a wrong password is a permanent error', async () => {
    const p = new CoreDnsProvider({
      store: new EtcdClient({ urls: [etcd.url], username: 'root', password: 'secret-pw', timeoutMs: 5000 }),
      logger: silentLogger(),
    });
    await p.applyChanges(changes({ create: [ep('auth.example.test', 'A', ['192.0.2.77'])] }));
    assert.deepEqual(find(await p.records(), 'auth.example.test', 'A')?.targets, ['192.0.2.77']);

    const anonymous = new CoreDnsProvider({ store: new EtcdClient({ urls: [etcd.url], timeoutMs: 5000 }), logger: silentLogger() });
    await assert.rejects(anonymous.records(), (err: unknown) => err instanceof ProviderError && !err.transient);
    const wrong = new CoreDnsProvider({
      store: new EtcdClient({ urls: [etcd.url], username: 'root', password: 'nope', timeoutMs: 5000 }),
      logger: silentLogger(),
    });
    await assert.rejects(wrong.records(), (err: unknown) => err instanceof ProviderError && !err.transient && /authentication failed/i.test(err.message));
  });
});
