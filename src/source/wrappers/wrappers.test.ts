import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../endpoint/endpoint.ts';
import { ConfigError, SourceError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import type { Source } from '../source.ts';
import fc from 'fast-check';
import { DedupSource, dedupEndpoints, dedupKey } from './dedup-source.ts';
import { DefaultTargetsSource } from './default-targets-source.ts';
import { wrapProcessing } from './build.ts';
import { MultiSource } from './multi-source.ts';

class FakeSource implements Source {
  readonly name: string;
  items: Endpoint[];
  fail = false;
  closed = false;
  held: ReadonlySet<string> | undefined;
  readonly handlers = new Set<() => void>();
  constructor(name: string, items: EndpointInit[]) {
    this.name = name;
    this.items = items.map(newEndpoint);
  }
  async endpoints(): Promise<Endpoint[]> {
    if (this.fail) throw new Error('boom');
    return this.items.map((e) => newEndpoint(e));
  }
  addEventHandler(handler: () => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }
  emit(): void {
    for (const h of this.handlers) h();
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  heldResources(): ReadonlySet<string> {
    return this.held ?? new Set();
  }
}

const ep = (dnsName: string, targets: string[], recordType: Endpoint['recordType'] = 'A', extra: Partial<EndpointInit> = {}): EndpointInit => ({
  dnsName,
  targets,
  recordType,
  ...extra,
});

describe('MultiSource', () => {
  test('concatenates in order, fans in events, closes children', async () => {
    const a = new FakeSource('a', [ep('a.example.org', ['192.0.2.1'])]);
    const b = new FakeSource('b', [ep('b.example.org', ['192.0.2.2'])]);
    const multi = new MultiSource({ sources: [a, b] });
    assert.equal(multi.name, 'a+b');
    assert.deepEqual(
      (await multi.endpoints()).map((e) => e.dnsName),
      ['a.example.org', 'b.example.org'],
    );
    let events = 0;
    const off = multi.addEventHandler(() => (events += 1));
    a.emit();
    b.emit();
    assert.equal(events, 2);
    off();
    a.emit();
    assert.equal(events, 2);
    await multi.close();
    assert.ok(a.closed && b.closed);
  });

  test('one failing source fails the list, naming the source', async () => {
    const a = new FakeSource('a', []);
    const b = new FakeSource('b', []);
    b.fail = true;
    await assert.rejects(new MultiSource({ sources: [a, b] }).endpoints(), (err: unknown) => err instanceof SourceError && err.message.includes('source b'));
  });
});

describe('DedupSource', () => {
  test('drops exact duplicates only', async () => {
    const res = (r: string) => ({ labels: { resource: r } });
    const inner = new FakeSource('x', [
      ep('a.example.org', ['192.0.2.1', '192.0.2.2'], 'A', res('service/d/a')),
      ep('a.example.org', ['192.0.2.2', '192.0.2.1'], 'A', res('service/d/a')),
      ep('a.example.org', ['192.0.2.1', '192.0.2.2'], 'A', res('service/d/b')),
      ep('a.example.org', ['192.0.2.1', '192.0.2.2'], 'A', { ...res('service/d/a'), setIdentifier: 'eu' }),
      ep('c.example.org', ['LB.example.net'], 'CNAME'),
      ep('c.example.org', ['lb.example.net.'], 'CNAME'),
    ]);
    const out = await new DedupSource({ source: inner }).endpoints();
    assert.equal(out.length, 4);
  });

  test('keeps the same endpoints, in the same order, as comparing every full key', () => {
    const reference = (eps: readonly Endpoint[]): Endpoint[] => {
      const seen = new Set<string>();
      return eps.filter((e) => !seen.has(dedupKey(e)) && seen.add(dedupKey(e)) !== undefined);
    };
    const arbEp = fc.record({
      dnsName: fc.constantFrom('a.example.org', 'b.example.org'),
      recordType: fc.constantFrom<Endpoint['recordType']>('A', 'CNAME'),
      targets: fc.array(fc.constantFrom('192.0.2.1', '192.0.2.2', 'LB.example.net', 'lb.example.net.'), { maxLength: 3 }),
      setIdentifier: fc.constantFrom('', 'eu'),
      labels: fc.constantFrom<Record<string, string>>({}, { resource: 'service/d/a' }, { resource: 'service/d/b' }),
    });
    fc.assert(
      fc.property(fc.array(arbEp, { maxLength: 30 }), (inits) => {
        const eps = inits.map((i) => newEndpoint(i));
        assert.deepEqual(dedupEndpoints(eps), reference(eps));
      }),
      { numRuns: 300 },
    );
  });
});

describe('DefaultTargetsSource', () => {
  test('fills endpoints without targets and keeps the others', async () => {
    const inner = new FakeSource('x', [
      ep('empty.example.org', [], 'A', { recordTTL: 60, setIdentifier: 's', labels: { resource: 'crd/d/x' } }),
      ep('kept.example.org', ['192.0.2.9']),
      ep('txt.example.org', ['hello'], 'TXT'),
    ]);
    const source = new DefaultTargetsSource({ source: inner, defaultTargets: ['192.0.2.1', '2001:db8::1', 'lb.example.net.'], logger: silentLogger() });
    const out = (await source.endpoints()).map(
      (e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ${e.recordTTL} ${e.setIdentifier} ${e.labels['resource'] ?? ''}`,
    );
    assert.deepEqual(out, [
      'empty.example.org A 192.0.2.1 60 s crd/d/x',
      'empty.example.org AAAA 2001:db8::1 60 s crd/d/x',
      'empty.example.org CNAME lb.example.net 60 s crd/d/x',
      'kept.example.org A 192.0.2.9 0  ',
      'txt.example.org TXT hello 0  ',
    ]);
  });

  test('force replaces address targets but not TXT', async () => {
    const inner = new FakeSource('x', [ep('kept.example.org', ['192.0.2.9']), ep('txt.example.org', ['hello'], 'TXT')]);
    const source = new DefaultTargetsSource({ source: inner, defaultTargets: ['198.51.100.1'], force: true, logger: silentLogger() });
    assert.deepEqual(
      (await source.endpoints()).map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')}`),
      ['kept.example.org A 198.51.100.1', 'txt.example.org TXT hello'],
    );
  });

  test('without default targets, empty endpoints are dropped; fromConfig skips the wrapper', async () => {
    const inner = new FakeSource('x', [ep('empty.example.org', [])]);
    assert.deepEqual(await new DefaultTargetsSource({ source: inner, defaultTargets: [], logger: silentLogger() }).endpoints(), []);
    assert.equal(DefaultTargetsSource.fromConfig({}, { source: inner, logger: silentLogger() }), inner);
  });

  test('invalid default targets are a ConfigError naming the flag', () => {
    assert.throws(
      () => DefaultTargetsSource.fromConfig({ defaultTargets: ['not a host'] }, { source: new FakeSource('x', []), logger: silentLogger() }),
      (err: unknown) => err instanceof ConfigError && err.flag === '--default-targets',
    );
  });
});

test('held resources pass through the multi source and every wrapper', async () => {
  const a = new FakeSource('a', []);
  const b = new FakeSource('b', []);
  a.held = new Set(['service/default/web']);
  b.held = new Set(['ingress/shop/front', 'service/default/web']);
  const multi = new MultiSource({ sources: [a, b] });
  assert.deepEqual([...multi.heldResources()].sort(), ['ingress/shop/front', 'service/default/web']);
  const logger = silentLogger();
  const wrapped = wrapProcessing(
    new DedupSource({ source: DefaultTargetsSource.fromConfig({ defaultTargets: ['192.0.2.1'] }, { source: multi, logger }) }),
    {
      nat64Networks: ['64:ff9b::/96'],
      targetNetFilter: ['192.0.2.0/24'],
      excludeTargetNets: [],
      createPTR: false,
      ptrManaged: false,
      minTTL: 0,
      preferAlias: false,
      provider: 'inmemory',
    },
    logger,
  );
  await wrapped.endpoints();
  assert.deepEqual([...(wrapped.heldResources?.() ?? [])].sort(), ['ingress/shop/front', 'service/default/web']);
});
