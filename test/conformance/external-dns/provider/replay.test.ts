/**
 * Replays external-dns provider test cases (facts only): the zone id filter cases
 * (zone-id-filter.json) through the matcher the aws, google and azure providers use for
 * --zone-id-filter, and the rfc2136 load-balancing cases (rfc2136-nameservers.json) through the
 * rotation behind repeated --rfc2136-host, and the coredns --coredns-strictly-owned cases
 * (coredns-strictly-owned.json) through the coredns provider over an in-memory key-value store.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../../../src/log.ts';
import { CoreDnsProvider } from '../../../../src/provider/coredns/coredns.ts';
import { NameserverPool } from '../../../../src/provider/rfc2136/nameservers.ts';
import type { LoadBalancingStrategy, NameserverOp } from '../../../../src/provider/rfc2136/nameservers.ts';
import { zoneIdFilterConfigured, zoneIdMatches } from '../../../../src/provider/zone-filter.ts';

interface Case {
  name: string;
  upstreamTest: string;
  zoneIdFilter: string[];
  zone?: string;
  expected?: boolean;
  /** IsConfigured: whether the filter selects anything (an empty value does not). */
  configured?: boolean;
}

const here = dirname(fileURLToPath(import.meta.url));
const data = JSON.parse(await readFile(join(here, 'zone-id-filter.json'), 'utf8')) as { upstream: string; cases: Case[] };

describe(`external-dns ${data.upstream}`, () => {
  for (const c of data.cases) {
    test(`${c.upstreamTest}: ${c.name}`, () => {
      if (c.expected !== undefined) assert.equal(zoneIdMatches(c.zoneIdFilter, c.zone ?? ''), c.expected);
      if (c.configured !== undefined) assert.equal(zoneIdFilterConfigured(c.zoneIdFilter), c.configured);
    });
  }
});

interface NameserverCase {
  name: string;
  upstreamTest: string;
  strategy: LoadBalancingStrategy;
  nameservers: string[];
  /** Each step asks for the next server of `op`; `failed` records that the previous attempt of `op` failed. */
  steps?: { op: NameserverOp; expect?: string; failed?: boolean }[];
  sends?: number;
  expectDistinctAtLeast?: number;
}

const lb = JSON.parse(await readFile(join(here, 'rfc2136-nameservers.json'), 'utf8')) as { upstream: string; cases: NameserverCase[] };

describe(`external-dns ${lb.upstream} (load balancing)`, () => {
  for (const c of lb.cases) {
    test(`${c.upstreamTest}: ${c.name}`, () => {
      const pool = new NameserverPool(c.nameservers, c.strategy);
      for (const step of c.steps ?? []) {
        if (step.failed === true) pool.failed(step.op);
        if (step.expect !== undefined) assert.equal(pool.next(step.op), step.expect);
      }
      if (c.sends !== undefined) {
        const used = new Set(Array.from({ length: c.sends }, () => pool.next('send')));
        assert.ok(used.size >= (c.expectDistinctAtLeast ?? 1), `used ${[...used].join(', ')}`);
      }
    });
  }
});

interface CorednsCase {
  name: string;
  upstreamTest: string;
  prefix: string;
  owner: string;
  strictlyOwned: boolean;
  kvs: Record<string, unknown>;
  expectNames: string[];
  /** The owner label every listed record carries ('' for none). */
  expectOwnerLabel?: string;
}

const coredns = JSON.parse(await readFile(join(here, 'coredns-strictly-owned.json'), 'utf8')) as { upstream: string; cases: CorednsCase[] };

describe(`external-dns ${coredns.upstream} (--coredns-strictly-owned)`, () => {
  for (const c of coredns.cases) {
    test(`${c.upstreamTest}: ${c.name}`, async () => {
      const store = {
        range: (prefix: string) =>
          Promise.resolve(
            Object.entries(c.kvs)
              .filter(([key]) => key.startsWith(prefix))
              .map(([key, value]) => ({ key, value: JSON.stringify(value), modRevision: '1' })),
          ),
        txn: () => Promise.resolve(true),
      };
      const provider = new CoreDnsProvider({ store, prefix: c.prefix, logger: silentLogger(), ...(c.strictlyOwned ? { strictOwner: c.owner } : {}) });
      const records = await provider.records();
      assert.deepEqual([...new Set(records.map((r) => r.dnsName))].sort(), c.expectNames);
      if (c.expectOwnerLabel !== undefined) for (const r of records) assert.equal(r.labels['owner'] ?? '', c.expectOwnerLabel, `${r.dnsName} ${r.recordType}`);
    });
  }
});
