import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { freezeEndpoint, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../endpoint/endpoint.ts';
import { TargetNetFilter } from '../../endpoint/target-filter.ts';
import { ConfigError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import type { Source } from '../source.ts';
import { wrapProcessing } from './build.ts';
import type { WrapperSettings } from './build.ts';
import { addNat64Endpoints, parseNat64Networks } from './nat64.ts';
import { postProcess } from './post-process.ts';
import { addPtrEndpoints, reverseName } from './ptr.ts';
import { filterTargets } from './target-filter.ts';

/** Frozen like the Kubernetes sources' endpoints: a wrapper that writes to one throws. */
const ep = (dnsName: string, recordType: Endpoint['recordType'], targets: string[], extra: Partial<EndpointInit> = {}): Endpoint =>
  freezeEndpoint(newEndpoint({ dnsName, recordType, targets, ...extra }));
const brief = (eps: readonly Endpoint[]): string[] => eps.map((e) => `${e.dnsName} ${e.recordType} ${e.recordTTL} ${e.targets.join(',')}`);

const NONE: WrapperSettings = {
  nat64Networks: [],
  targetNetFilter: [],
  excludeTargetNets: [],
  createPTR: false,
  ptrManaged: false,
  minTTL: 0,
  preferAlias: false,
  provider: 'embedded',
};

function staticSource(endpoints: Endpoint[]): Source {
  return { name: 'static', endpoints: () => Promise.resolve(endpoints), addEventHandler: () => () => undefined };
}

describe('target net filter (--target-net-filter, --exclude-target-net)', () => {
  const eps = [
    ep('a.example.org', 'A', ['10.1.0.1', '192.0.2.1']),
    ep('b.example.org', 'A', ['192.0.2.2']),
    ep('c.example.org', 'AAAA', ['2001:db8::1', 'fd00::1']),
    ep('d.example.org', 'CNAME', ['lb.example.net']),
  ];

  test('keeps only targets inside the filter networks; hostnames never match a filter', () => {
    const out = filterTargets(eps, new TargetNetFilter(['10.0.0.0/8', 'fd00::/8'], []), silentLogger());
    assert.deepEqual(brief(out), ['a.example.org A 0 10.1.0.1', 'c.example.org AAAA 0 fd00::1']);
  });

  test('drops targets inside excluded networks; hostnames are kept', () => {
    const out = filterTargets(eps, new TargetNetFilter([], ['192.0.2.0/24', '2001:db8::/32']), silentLogger());
    assert.deepEqual(brief(out), ['a.example.org A 0 10.1.0.1', 'c.example.org AAAA 0 fd00::1', 'd.example.org CNAME 0 lb.example.net']);
  });

  test('exclusion wins over the filter; IPv4-mapped IPv6 addresses match IPv4 networks', () => {
    const f = new TargetNetFilter(['10.0.0.0/8'], ['10.1.0.0/16']);
    assert.equal(f.matches('10.2.0.1'), true);
    assert.equal(f.matches('10.1.0.1'), false);
    assert.equal(new TargetNetFilter(['10.0.0.0/8'], []).matches('::ffff:10.1.2.3'), true);
    assert.equal(new TargetNetFilter([], []).enabled, false);
  });

  test('a network that is not CIDR stops start-up naming the flag', () => {
    assert.throws(
      () => new TargetNetFilter(['10.0.0.0'], []),
      (e: unknown) => e instanceof ConfigError && e.flag === '--target-net-filter',
    );
    assert.throws(
      () => new TargetNetFilter([], ['10.0.0.0/33']),
      (e: unknown) => e instanceof ConfigError && e.flag === '--exclude-target-net',
    );
    assert.throws(() => new TargetNetFilter(['example.org/8'], []), /CIDR/);
  });
});

describe('NAT64 (--nat64-networks)', () => {
  test('an AAAA endpoint in a NAT64 prefix also yields an A endpoint with the embedded IPv4 addresses', () => {
    const prefixes = parseNat64Networks(['64:ff9b::/96']);
    assert.ok(prefixes !== undefined);
    const aaaa = ep('a.example.org', 'AAAA', ['64:ff9b::c000:201', '2001:db8::1', '64:ff9b::192.0.2.2'], {
      recordTTL: 60,
      setIdentifier: 'eu',
      labels: { resource: 'service/default/a' },
      providerSpecific: [{ name: 'aws/weight', value: '1' }],
    });
    const out = addNat64Endpoints([aaaa, ep('b.example.org', 'AAAA', ['2001:db8::2']), ep('c.example.org', 'A', ['192.0.2.9'])], prefixes);
    assert.equal(out.length, 4);
    const a = out[3];
    assert.deepEqual(a, {
      ...newEndpoint(aaaa),
      recordType: 'A',
      targets: ['192.0.2.1', '192.0.2.2'],
    });
  });

  test('prefixes must be IPv6 /96 networks', () => {
    assert.equal(parseNat64Networks([]), undefined);
    assert.throws(() => parseNat64Networks(['64:ff9b::/64']), /need to be \/96 prefixes/);
    assert.throws(
      () => parseNat64Networks(['10.0.0.0/96']),
      (e: unknown) => e instanceof ConfigError && e.flag === '--nat64-networks',
    );
  });
});

describe('PTR (--create-ptr, record-type annotation)', () => {
  const logger = silentLogger();
  test('reverse names', () => {
    assert.equal(reverseName('192.0.2.10'), '10.2.0.192.in-addr.arpa');
    assert.equal(reverseName('2001:db8::567:89ab'), 'b.a.9.8.7.6.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
    assert.equal(reverseName('example.org'), undefined);
  });

  test('--create-ptr: every A/AAAA endpoint gets PTRs; names of one address share one endpoint with the lowest TTL', () => {
    const out = addPtrEndpoints(
      [
        ep('a.example.org', 'A', ['192.0.2.1', '192.0.2.2'], { recordTTL: 300 }),
        ep('b.example.org', 'A', ['192.0.2.1'], { recordTTL: 60 }),
        ep('*.example.org', 'A', ['192.0.2.3']),
        ep('c.example.org', 'AAAA', ['2001:db8::1']),
        ep('d.example.org', 'CNAME', ['a.example.org']),
      ],
      { createByDefault: true, ptrManaged: true, logger },
    );
    assert.deepEqual(brief(out.slice(5)), [
      '1.2.0.192.in-addr.arpa PTR 60 a.example.org,b.example.org',
      '2.2.0.192.in-addr.arpa PTR 300 a.example.org',
      '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa PTR 0 c.example.org',
    ]);
  });

  test('the record-type property overrides the default either way and is removed', () => {
    const optIn = ep('a.example.org', 'A', ['192.0.2.1'], { providerSpecific: [{ name: 'record-type', value: 'PTR' }] });
    const optOut = ep('b.example.org', 'A', ['192.0.2.2'], { providerSpecific: [{ name: 'record-type', value: '' }] });
    const plain = ep('c.example.org', 'A', ['192.0.2.3']);
    const off = addPtrEndpoints([optIn, optOut, plain], { createByDefault: false, ptrManaged: true, logger });
    assert.deepEqual(brief(off.slice(3)), ['1.2.0.192.in-addr.arpa PTR 0 a.example.org']);
    assert.ok(off.every((e) => e.providerSpecific.length === 0));
    const on = addPtrEndpoints([optIn, optOut, plain], { createByDefault: true, ptrManaged: true, logger });
    assert.deepEqual(brief(on.slice(3)), ['1.2.0.192.in-addr.arpa PTR 0 a.example.org', '3.2.0.192.in-addr.arpa PTR 0 c.example.org']);
  });

  test('without PTR in --managed-record-types no PTR is made, but the property still never reaches a provider', () => {
    const cname = ep('d.example.org', 'CNAME', ['x.example.net'], { providerSpecific: [{ name: 'record-type', value: 'ptr' }] });
    const optIn = ep('a.example.org', 'A', ['192.0.2.1'], { providerSpecific: [{ name: 'record-type', value: 'ptr' }] });
    const out = addPtrEndpoints([optIn, cname], { createByDefault: false, ptrManaged: false, logger });
    assert.deepEqual(brief(out), ['a.example.org A 0 192.0.2.1', 'd.example.org CNAME 0 x.example.net']);
    assert.ok(out.every((e) => e.providerSpecific.length === 0));
  });
});

describe('post-processor (--min-ttl, --prefer-alias)', () => {
  test('--min-ttl sets unset TTLs only: it is a default, not a floor', () => {
    const out = postProcess([ep('a.example.org', 'A', ['192.0.2.1']), ep('b.example.org', 'A', ['192.0.2.2'], { recordTTL: 10 })], {
      minTTL: 72,
      preferAlias: false,
      provider: '',
    });
    assert.deepEqual(
      out.map((e) => e.recordTTL),
      [72, 10],
    );
  });

  test('--prefer-alias marks CNAMEs without an alias property', () => {
    const out = postProcess(
      [
        ep('a.example.org', 'CNAME', ['lb.example.net']),
        ep('b.example.org', 'CNAME', ['lb.example.net'], { providerSpecific: [{ name: 'alias', value: 'false' }] }),
        ep('c.example.org', 'A', ['192.0.2.1']),
      ],
      { minTTL: 0, preferAlias: true, provider: '' },
    );
    assert.deepEqual(
      out.map((e) => e.providerSpecific),
      [[{ name: 'alias', value: 'true' }], [{ name: 'alias', value: 'false' }], []],
    );
  });
});

test("--provider keeps its own and unprefixed properties, drops other providers' (cloudflare: all kept)", () => {
  const props = [
    { name: 'alias', value: 'true' },
    { name: 'aws/weight', value: '10' },
    { name: 'webhook/foo', value: 'bar' },
    { name: 'external-dns.alpha.kubernetes.io/cloudflare-proxied', value: 'true' },
  ];
  const one = ep('a.example.org', 'CNAME', ['lb.example.net'], { providerSpecific: props });
  const kept = (provider: string): string[] => postProcess([one], { minTTL: 0, preferAlias: false, provider })[0]?.providerSpecific.map((p) => p.name) ?? [];
  const cf = 'external-dns.alpha.kubernetes.io/cloudflare-proxied';
  assert.deepEqual(kept('aws'), ['alias', 'aws/weight', cf]);
  assert.deepEqual(kept('webhook'), ['alias', 'webhook/foo', cf]);
  assert.deepEqual(kept('google'), ['alias', cf]);
  assert.deepEqual(
    kept('cloudflare'),
    props.map((p) => p.name),
  );
  const untouched = ep('b.example.org', 'A', ['192.0.2.1'], { providerSpecific: [{ name: 'aws/weight', value: '1' }] });
  assert.equal(postProcess([untouched], { minTTL: 0, preferAlias: false, provider: 'aws' })[0], untouched, 'nothing to change: the same object');
});

test('azure/* is kept for azure, its alias azure-dns and azure-private-dns; coredns/* for skydns; dropped elsewhere', () => {
  const props = [
    { name: 'azure/tags', value: 'a=1' },
    { name: 'coredns/group', value: 'g1' },
    { name: 'aws/weight', value: '10' },
  ];
  const one = ep('a.example.org', 'A', ['192.0.2.1'], { providerSpecific: props });
  const kept = (provider: string): string[] => postProcess([one], { minTTL: 0, preferAlias: false, provider })[0]?.providerSpecific.map((p) => p.name) ?? [];
  for (const provider of ['azure', 'azure-dns', 'azure-private-dns']) assert.deepEqual(kept(provider), ['azure/tags'], provider);
  for (const provider of ['coredns', 'skydns']) assert.deepEqual(kept(provider), ['coredns/group'], provider);
  for (const provider of ['google', 'embedded', 'pdns', 'rfc2136', 'inmemory', 'webhook']) assert.deepEqual(kept(provider), [], provider);
});

describe('wrapProcessing', () => {
  test('runs NAT64, the target filter, PTR and the post-processor in external-dns order', async () => {
    const source = wrapProcessing(
      staticSource([ep('a.example.org', 'AAAA', ['64:ff9b::a00:1', '2001:db8::1'])]),
      { ...NONE, nat64Networks: ['64:ff9b::/96'], excludeTargetNets: ['2001:db8::/32'], createPTR: true, ptrManaged: true, minTTL: 30 },
      silentLogger(),
    );
    // NAT64 sees the AAAA before the filter drops 2001:db8::1; PTRs are made for what is left; the TTL comes last.
    assert.deepEqual(brief(await source.endpoints()), [
      'a.example.org AAAA 30 64:ff9b::a00:1',
      'a.example.org A 30 10.0.0.1',
      '1.0.0.0.0.0.a.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.b.9.f.f.4.6.0.0.ip6.arpa PTR 30 a.example.org',
      '1.0.0.10.in-addr.arpa PTR 30 a.example.org',
    ]);
  });

  test('--create-ptr without PTR in --managed-record-types stops start-up', () => {
    assert.throws(
      () => wrapProcessing(staticSource([]), { ...NONE, createPTR: true }, silentLogger()),
      (e: unknown) => e instanceof ConfigError && /requires PTR in --managed-record-types/.test(e.message),
    );
  });
});
