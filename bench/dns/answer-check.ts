/**
 * The answer check of `npm run bench:dns`, run before any figure: a sample of names per query
 * category plus the apex SOA and NS go to every server through dig, and rcode, the AA and TC flags
 * and the sorted answer and authority sections must be the same everywhere. A difference aborts
 * the benchmark with the differing answers side by side. dig asks as dnsperf does (RD set, no
 * EDNS): BIND and Hostwarden leave the apex NS RRset out of positive answers to RD queries, Knot
 * always does, NSD with minimal-responses.
 */
import { digBatch } from '../../test/support/dig.ts';
import type { DigResult } from '../../test/support/dig.ts';
import { CATEGORY_SIZE, MIX, ORIGIN, prng, queryLine } from './bench-zone.ts';

/** `perCategory` names of each category (seeded, distinct where the category has enough names). */
export function sampleQueries(perCategory: number): string[][] {
  const rand = prng(2024);
  const queries: string[][] = [
    [ORIGIN, 'SOA'],
    [ORIGIN, 'NS'],
  ];
  for (const [category] of MIX) {
    const picked = new Set<number>();
    for (let i = 0; i < perCategory * 20 && picked.size < Math.min(perCategory, CATEGORY_SIZE[category]); i++)
      picked.add(Math.floor(rand() * CATEGORY_SIZE[category]));
    for (const i of picked) queries.push(queryLine(category, i).split(' '));
  }
  return queries;
}

function comparable(r: DigResult): string {
  const flags = ['aa', 'tc'].filter((f) => r.flags.includes(f)).join(' ');
  return [`rcode ${r.status}; flags ${flags}`, ...[...r.answer].sort().map((l) => `AN ${l}`), ...[...r.authority].sort().map((l) => `NS ${l}`)].join('\n');
}

/** Throws with a readable diff when any server's answer differs from the first server's. */
export async function checkAnswers(servers: { name: string; port: number }[], perCategory = 50): Promise<number> {
  const queries = sampleQueries(perCategory);
  const answers = await Promise.all(servers.map((s) => digBatch(s.port, queries, ['+noedns'])));
  const diffs: string[] = [];
  for (const [q, query] of queries.entries()) {
    const reference = comparable(answers[0]?.[q] ?? ({ flags: [], answer: [], authority: [] } as unknown as DigResult));
    for (const [k, s] of servers.entries()) {
      const r = answers[k]?.[q];
      const got = r === undefined ? '(no answer)' : comparable(r);
      if (got !== reference && diffs.length < 10)
        diffs.push(
          `${query.join(' ')}:\n  ${servers[0]?.name}:\n    ${reference.split('\n').join('\n    ')}\n  ${s.name}:\n    ${got.split('\n').join('\n    ')}`,
        );
    }
  }
  if (diffs.length > 0) throw new Error(`answer check failed (first ${diffs.length} differences):\n${diffs.join('\n')}`);
  return queries.length;
}
