import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HOSTS, generateQueries, parsePopularity, prng } from '../../bench/dns/bench-zone.ts';

describe('bench:dns query generator', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    assert.deepEqual(generateQueries(5000).lines, generateQueries(5000).lines);
    assert.notDeepEqual(generateQueries(5000, undefined, 1).lines, generateQueries(5000, undefined, 2).lines);
    const r = prng(7);
    const values = Array.from({ length: 1000 }, () => r());
    assert.ok(values.every((v) => v >= 0 && v < 1));
    // Low bits vary: the old LCG's `seed % 16` cycled with period 16.
    assert.ok(new Set(values.map((v) => Math.floor(v * 2 ** 32) % 16)).size === 16);
  });

  it('has the documented mix by exact counts, shuffled', () => {
    const q = generateQueries(200_000);
    assert.deepEqual(q.mix, { A: 140_000, CNAME: 20_000, NXDOMAIN: 20_000, TXT: 10_000, wildcard: 10_000 });
    assert.equal(q.lines.length, 200_000);
    assert.equal(q.lines.filter((l) => l.startsWith('alias-')).length, 20_000);
    assert.equal(q.lines.filter((l) => l.endsWith(' TXT')).length, 10_000);
    // Shuffled: the first thousand queries hold every category.
    const head = q.lines.slice(0, 1000);
    for (const prefix of ['host-', 'alias-', 'missing-', 'txt-', 'w'])
      assert.ok(
        head.some((l) => l.startsWith(prefix)),
        prefix,
      );
    const odd = generateQueries(7);
    assert.equal(
      Object.values(odd.mix).reduce((a, b) => a + b, 0),
      7,
    );
  });

  it('reaches every host, alias and TXT name with uniform popularity over 200k queries', () => {
    const q = generateQueries(200_000);
    assert.equal(q.distinctPerCategory.A, HOSTS);
    assert.equal(q.distinctPerCategory.CNAME, 1000);
    assert.equal(q.distinctPerCategory.TXT, 1000);
    assert.ok(q.distinct > 25_000, String(q.distinct));
  });

  it('skews with zipf: the top 1 % of hosts take a large share', () => {
    const q = generateQueries(200_000, parsePopularity('zipf'));
    const counts = new Map<string, number>();
    for (const l of q.lines) if (l.startsWith('host-')) counts.set(l, (counts.get(l) ?? 0) + 1);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    const top = sorted.slice(0, HOSTS / 100).reduce((a, b) => a + b, 0);
    // Zipf s=1 over 10k names: the top 100 ranks hold H(100)/H(10000) ≈ 53 % of the draws.
    assert.ok(top / 140_000 > 0.45 && top / 140_000 < 0.6, String(top / 140_000));
    assert.ok(q.distinctPerCategory.A < HOSTS);
    assert.deepEqual(q.mix, generateQueries(200_000).mix);
    const steeper = generateQueries(200_000, parsePopularity('zipf:1.5'));
    assert.ok(steeper.distinct < q.distinct);
  });

  it('rejects a bad --popularity', () => {
    assert.throws(() => parsePopularity('zipf:-1'), /--popularity/);
    assert.throws(() => parsePopularity('pareto'), /--popularity/);
    assert.deepEqual(parsePopularity('zipf:0.8'), { kind: 'zipf', s: 0.8 });
  });
});
