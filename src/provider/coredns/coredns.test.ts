import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagValues } from '../../config/config.ts';
import { FLAGS } from '../../config/flags.ts';
import { parseArgs } from '../../config/parse.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import { ConfigError, ProviderError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import { emptyChanges } from '../../plan/changes.ts';
import type { Changes } from '../../plan/changes.ts';
import { CoreDnsProvider } from './coredns.ts';
import type { KeyValueStore } from './coredns.ts';
import { prefixEnd } from './etcd-client.ts';
import type { TxnGuard, TxnOp } from './etcd-client.ts';
import { COREDNS_FLAGS, corednsSettings } from './flags.ts';
import { keyFor, normalizePrefix, parseService, serviceValue } from './skydns.ts';

/** An in-memory etcd with revisions, enough to exercise guarded transactions. */
class FakeEtcd implements KeyValueStore {
  readonly data = new Map<string, { value: string; rev: number }>();
  rev = 1;
  txns = 0;
  /** Called before each transaction: lets a test change keys behind the provider's back. */
  beforeTxn: () => void = () => undefined;

  set(key: string, value: unknown): void {
    this.data.set(key, { value: typeof value === 'string' ? value : JSON.stringify(value), rev: ++this.rev });
  }

  range(prefix: string): Promise<{ key: string; value: string; modRevision: string }[]> {
    return Promise.resolve(
      [...this.data]
        .filter(([k]) => k.startsWith(prefix))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, v]) => ({ key, value: v.value, modRevision: String(v.rev) })),
    );
  }

  txn(guards: readonly TxnGuard[], ops: readonly TxnOp[]): Promise<boolean> {
    this.txns++;
    this.beforeTxn();
    if (!guards.every((g) => String(this.data.get(g.key)?.rev ?? 0) === g.modRevision)) return Promise.resolve(false);
    for (const op of ops) {
      if ('put' in op) this.set(op.put.key, op.put.value);
      else if ('delete' in op) this.data.delete(op.delete);
      else for (const k of [...this.data.keys()]) if (k.startsWith(op.deletePrefix)) this.data.delete(k);
    }
    return Promise.resolve(true);
  }
}

function ep(dnsName: string, recordType: RecordType, targets: string[], recordTTL = 0): Endpoint {
  return newEndpoint({ dnsName, recordType, targets, recordTTL });
}

function changes(part: Partial<Changes>): Changes {
  return { ...emptyChanges(), ...part };
}

function provider(store: FakeEtcd, prefix = '/skydns/'): CoreDnsProvider {
  let n = 0;
  return new CoreDnsProvider({ store, prefix, logger: silentLogger(), randomLabel: () => `0000000${++n}`.slice(-8) });
}

describe('SkyDNS keys and values', () => {
  test('names map to reversed keys under the prefix, and back through targetstrip', () => {
    assert.equal(normalizePrefix('/skydns'), '/skydns/');
    assert.equal(keyFor('/skydns/', 'www.example.org', 'abcd0123'), '/skydns/org/example/www/abcd0123');
    assert.equal(parseService('/skydns/', '/skydns/org/example/www/abcd0123', '{"host":"1.2.3.4","targetstrip":1}', '5')?.name, 'www.example.org');
    assert.equal(parseService('/skydns/', '/skydns/org/example/www', '{"host":"1.2.3.4"}', '5')?.name, 'www.example.org');
    assert.equal(parseService('/skydns/', '/skydns/org/example/www/x', '[1]', '5'), undefined);
    assert.equal(parseService('/skydns/', '/skydns/org/example/www/x', 'nope', '5'), undefined);
  });

  test('values are written in external-dns field order, zero values omitted, unknown fields kept', () => {
    assert.equal(serviceValue({ host: '1.2.3.4', text: '', ttl: 0, targetstrip: 1, group: '', setIdentifier: '' }), '{"host":"1.2.3.4","targetstrip":1}');
    assert.equal(serviceValue({ host: 'h', ttl: 60, targetstrip: 1 }, { port: 80, host: 'old' }), '{"host":"h","ttl":60,"targetstrip":1,"port":80}');
  });

  test('prefixEnd is the first key after every key with the prefix', () => {
    assert.equal(Buffer.from(prefixEnd('/skydns/'), 'base64').toString(), '/skydns0');
  });
});

describe('CoreDnsProvider with a fake etcd', () => {
  test('one transaction per name, guarded by the revisions read', async () => {
    const etcd = new FakeEtcd();
    const p = provider(etcd);
    await p.applyChanges(changes({ create: [ep('a.example.org', 'A', ['192.0.2.1', '192.0.2.2']), ep('b.example.org', 'CNAME', ['a.example.org'])] }));
    assert.equal(etcd.txns, 2);
    assert.deepEqual([...etcd.data.keys()].sort(), ['/skydns/org/example/a/00000001', '/skydns/org/example/a/00000002', '/skydns/org/example/b/00000003']);
  });

  test('a concurrent change to a name fails that name as a transient conflict; other names apply', async () => {
    const etcd = new FakeEtcd();
    etcd.set('/skydns/org/example/a/11111111', { host: '192.0.2.1', targetstrip: 1 });
    const p = provider(etcd);
    const [current] = await p.records();
    etcd.beforeTxn = () => {
      if (etcd.txns === 1) etcd.set('/skydns/org/example/a/11111111', { host: '192.0.2.9', targetstrip: 1 });
    };
    await assert.rejects(
      p.applyChanges(
        changes({
          delete: [current as Endpoint],
          create: [ep('c.example.org', 'A', ['192.0.2.3'])],
        }),
      ),
      (err: unknown) => {
        assert.ok(err instanceof ProviderError);
        assert.equal(err.code, 'PROVIDER_CONFLICT');
        assert.equal(err.transient, true);
        return true;
      },
    );
    assert.equal(JSON.parse(etcd.data.get('/skydns/org/example/a/11111111')?.value ?? '{}').host, '192.0.2.9', 'the concurrent write survives');
    assert.ok(etcd.data.has('/skydns/org/example/c/00000001'));
  });

  test('an update with the same values writes nothing', async () => {
    const etcd = new FakeEtcd();
    const p = provider(etcd);
    await p.applyChanges(changes({ create: [ep('a.example.org', 'A', ['192.0.2.1'], 60)] }));
    const [current] = await p.records();
    etcd.txns = 0;
    await p.applyChanges(changes({ updateOld: [current as Endpoint], updateNew: [ep('a.example.org', 'A', ['192.0.2.1'], 60)] }));
    assert.equal(etcd.txns, 0);
  });

  test('a name changes from A to CNAME in one sync (deletes first)', async () => {
    const etcd = new FakeEtcd();
    const p = provider(etcd);
    await p.applyChanges(changes({ create: [ep('a.example.org', 'A', ['192.0.2.1'])] }));
    const [current] = await p.records();
    await p.applyChanges(changes({ delete: [current as Endpoint], create: [ep('a.example.org', 'CNAME', ['b.example.org'])] }));
    assert.deepEqual(
      (await p.records()).map((e) => [e.recordType, e.targets]),
      [['CNAME', ['b.example.org']]],
    );
  });

  test('set identifiers are stored and kept apart', async () => {
    const etcd = new FakeEtcd();
    const p = provider(etcd);
    await p.applyChanges(changes({ create: [newEndpoint({ dnsName: 'a.example.org', recordType: 'A', targets: ['192.0.2.1'], setIdentifier: 'east' })] }));
    await p.applyChanges(changes({ create: [newEndpoint({ dnsName: 'a.example.org', recordType: 'A', targets: ['192.0.2.2'], setIdentifier: 'west' })] }));
    const listed = await p.records();
    assert.deepEqual(listed.map((e) => [e.setIdentifier, e.targets[0]]).sort(), [
      ['east', '192.0.2.1'],
      ['west', '192.0.2.2'],
    ]);
  });
});

describe('coredns flags', () => {
  const settings = (argv: string[], env: Record<string, string> = {}): ReturnType<typeof corednsSettings> =>
    corednsSettings(new FlagValues(parseArgs(argv, {}, [...FLAGS, ...COREDNS_FLAGS]).values), env);

  test('defaults as external-dns: /skydns/ and http://localhost:2379', () => {
    const s = settings([]);
    assert.equal(s.prefix, '/skydns/');
    assert.deepEqual(s.etcd.urls, ['http://localhost:2379']);
    assert.equal(s.etcd.username, undefined);
  });

  test('ETCD_* variables are honoured; flags win', () => {
    const env = { ETCD_URLS: 'http://a:2379,http://b:2379', ETCD_USERNAME: 'u', ETCD_PASSWORD: 'p' };
    const s = settings([], env);
    assert.deepEqual(s.etcd.urls, ['http://a:2379', 'http://b:2379']);
    assert.deepEqual([s.etcd.username, s.etcd.password], ['u', 'p']);
    assert.deepEqual(settings(['--etcd-urls', 'http://c:2379'], env).etcd.urls, ['http://c:2379']);
  });

  test('bad values name the flag', () => {
    assert.throws(
      () => settings(['--etcd-urls', 'c:2379']),
      (err: unknown) => err instanceof ConfigError && err.flag === '--etcd-urls',
    );
    assert.throws(
      () => settings([], { ETCD_URLS: 'https://e:2379', ETCD_CA_FILE: '/nonexistent/ca.pem' }),
      (err: unknown) => err instanceof ConfigError && err.flag === '--etcd-ca-file',
    );
    assert.throws(
      () => settings(['--etcd-cert-file', '/x.pem']),
      (err: unknown) => err instanceof ConfigError && err.flag === '--etcd-key-file',
    );
    assert.throws(
      () => settings(['--coredns-prefix', 'skydns']),
      (err: unknown) => err instanceof ConfigError && err.flag === '--coredns-prefix',
    );
  });
});
