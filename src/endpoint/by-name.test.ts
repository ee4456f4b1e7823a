import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EndpointsByName } from './by-name.ts';
import { endpointKey, newEndpoint } from './endpoint.ts';
import type { Endpoint, RecordType } from './endpoint.ts';

const NUM_RUNS = 300;

function ep(dnsName: string, recordType: RecordType, setIdentifier = '', target = '192.0.2.1'): Endpoint {
  return newEndpoint({ dnsName, recordType, setIdentifier, targets: [target] });
}

type Op = { kind: 'set' | 'add'; ep: Endpoint } | { kind: 'delete'; dnsName: string; recordType: RecordType; setIdentifier: string };

// A small universe, so that names and record sets collide often.
const opArb: fc.Arbitrary<Op> = fc
  .record({
    kind: fc.constantFrom<'set' | 'add' | 'delete'>('set', 'set', 'add', 'delete'),
    dnsName: fc.constantFrom('a.example.org', 'b.example.org', 'c.example.org', 'd.example.org'),
    recordType: fc.constantFrom<RecordType>('A', 'AAAA', 'TXT'),
    setIdentifier: fc.constantFrom('', '', 'eu'),
    target: fc.constantFrom('192.0.2.1', '192.0.2.2', '192.0.2.3'),
  })
  .map((r): Op =>
    r.kind === 'delete'
      ? { kind: 'delete', dnsName: r.dnsName, recordType: r.recordType, setIdentifier: r.setIdentifier }
      : { kind: r.kind, ep: ep(r.dnsName, r.recordType, r.setIdentifier, r.target) },
  );

/**
 * The reference: a plain map by endpointKey (a list per key, for add()), plus the order in which
 * names became present. The expected order is the plain map's, grouped by name in that order.
 */
class Reference {
  readonly byKey = new Map<string, Endpoint[]>();
  private readonly nameOrder = new Map<string, number>();

  apply(op: Op): void {
    if (op.kind === 'delete') {
      this.byKey.delete(endpointKey(op));
      if (![...this.byKey.values()].some((l) => l[0]?.dnsName === op.dnsName)) this.nameOrder.delete(op.dnsName);
      return;
    }
    if (!this.nameOrder.has(op.ep.dnsName)) this.nameOrder.set(op.ep.dnsName, 0);
    const key = endpointKey(op.ep);
    const list = this.byKey.get(key);
    if (op.kind === 'set' || list === undefined) this.byKey.set(key, [op.ep]);
    else list.push(op.ep);
  }

  values(): Endpoint[] {
    const out: Endpoint[] = [];
    for (const name of this.nameOrder.keys()) for (const list of this.byKey.values()) if (list[0]?.dnsName === name) out.push(...list);
    return out;
  }
}

function run(ops: readonly Op[]): { map: EndpointsByName; ref: Reference } {
  const map = new EndpointsByName();
  const ref = new Reference();
  for (const op of ops) {
    if (op.kind === 'delete') map.delete(op.dnsName, op.recordType, op.setIdentifier);
    else if (op.kind === 'set') map.set(op.ep);
    else map.add(op.ep);
    ref.apply(op);
  }
  return { map, ref };
}

describe('EndpointsByName', () => {
  test('get, set in place, delete, and the size', () => {
    const map = new EndpointsByName();
    const a = ep('a.example.org', 'A');
    const aaaa = ep('a.example.org', 'AAAA', '', '2001:db8::1');
    const b = ep('b.example.org', 'A');
    map.set(a);
    map.set(b);
    map.set(aaaa);
    assert.equal(map.size, 3);
    assert.equal(map.get('a.example.org', 'AAAA', ''), aaaa);
    assert.equal(map.get('a.example.org', 'A', 'eu'), undefined);
    assert.equal(map.get('A.example.org', 'A', ''), undefined, 'names are compared exactly');
    assert.deepEqual(map.values(), [a, aaaa, b]);

    const a2 = ep('a.example.org', 'A', '', '192.0.2.9');
    map.set(a2);
    assert.equal(map.size, 3);
    assert.deepEqual(map.values(), [a2, aaaa, b], 'a replaced record set keeps its place');

    assert.equal(map.delete('a.example.org', 'A', ''), 1);
    assert.equal(map.delete('a.example.org', 'A', ''), 0);
    assert.equal(map.has('a.example.org', 'AAAA', ''), true);
    assert.equal(map.delete('a.example.org', 'AAAA', ''), 1);
    map.set(a);
    assert.deepEqual(map.values(), [b, a], 'a name that went away comes back at the end');
    assert.equal(map.size, 2);
    map.clear();
    assert.equal(map.size, 0);
    assert.deepEqual(map.values(), []);
  });

  test('add keeps the endpoints of one record set together; get returns the last; delete removes them all', () => {
    const map = new EndpointsByName();
    const a1 = ep('a.example.org', 'A', '', '192.0.2.1');
    const aaaa = ep('a.example.org', 'AAAA', '', '2001:db8::1');
    const a2 = ep('a.example.org', 'A', '', '192.0.2.2');
    map.add(a1);
    map.add(aaaa);
    map.add(a2);
    assert.deepEqual(map.values(), [a1, a2, aaaa]);
    assert.equal(map.get('a.example.org', 'A', ''), a2);
    assert.equal(map.delete('a.example.org', 'A', ''), 2);
    assert.equal(map.size, 1);
    assert.deepEqual(map.values(), [aaaa]);
  });

  test('at lists a name in order; remove takes out one endpoint by identity and collapses the name', () => {
    const map = new EndpointsByName();
    const a = ep('a.example.org', 'A');
    const twin = ep('a.example.org', 'A');
    const aaaa = ep('a.example.org', 'AAAA');
    map.add(a);
    map.add(aaaa);
    map.add(twin);
    assert.deepEqual(map.at('a.example.org'), [a, twin, aaaa]);
    assert.deepEqual(map.at('b.example.org'), []);
    assert.equal(map.remove(ep('a.example.org', 'A')), false, 'an equal but different object is not held');
    assert.equal(map.remove(twin), true);
    assert.equal(map.at('a.example.org')[0], a, 'the other endpoint of the set stays');
    assert.equal(map.remove(aaaa), true);
    assert.equal(map.remove(aaaa), false);
    assert.equal(map.size, 1);
    assert.equal(map.remove(a), true);
    assert.deepEqual(map.at('a.example.org'), []);
    assert.equal(map.size, 0);
  });

  test('values appends to a given array', () => {
    const map = new EndpointsByName();
    const a = ep('a.example.org', 'A');
    map.set(a);
    const before = ep('z.example.org', 'A');
    assert.deepEqual(map.values([before]), [before, a]);
  });

  test('property: same contents, lookups and order as a plain map by endpointKey, grouped by name', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const { map, ref } = run(ops);
        const expected = ref.values();
        assert.deepEqual(map.values(), expected);
        assert.equal(map.size, expected.length);
        for (const list of ref.byKey.values()) {
          const last = list[list.length - 1] as Endpoint;
          assert.equal(map.get(last.dnsName, last.recordType, last.setIdentifier), last);
        }
        for (const name of ['a.example.org', 'e.example.org']) {
          for (const type of ['A', 'AAAA', 'TXT'] as const) {
            for (const set of ['', 'eu'])
              assert.equal(map.has(name, type, set), ref.byKey.has(endpointKey({ dnsName: name, recordType: type, setIdentifier: set })));
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('property: with set and delete only, order matches the plain map exactly when every name holds one record set', () => {
    const single = fc.array(
      fc.record({
        del: fc.boolean(),
        dnsName: fc.constantFrom('a.example.org', 'b.example.org', 'c.example.org', 'd.example.org'),
        target: fc.constantFrom('192.0.2.1', '192.0.2.2'),
      }),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(single, (ops) => {
        const map = new EndpointsByName();
        const plain = new Map<string, Endpoint>();
        for (const op of ops) {
          const e = ep(op.dnsName, 'A', '', op.target);
          if (op.del) {
            map.delete(op.dnsName, 'A', '');
            plain.delete(endpointKey(e));
          } else {
            map.set(e);
            plain.set(endpointKey(e), e);
          }
        }
        assert.deepEqual(map.values(), [...plain.values()]);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
