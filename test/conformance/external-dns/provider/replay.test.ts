/**
 * Replays external-dns provider test cases (facts only): the zone id filter cases
 * (zone-id-filter.json) through the matcher the aws, google and azure providers use for
 * --zone-id-filter, and the rfc2136 load-balancing cases (rfc2136-nameservers.json) through the
 * rotation behind repeated --rfc2136-host, and the coredns --coredns-strictly-owned cases
 * (coredns-strictly-owned.json) through the coredns provider over an in-memory key-value store,
 * and the azure record-set metadata cases (azure-metadata.json) through the azure provider's
 * adjustEndpoints and record-set conversion.
 * flag-semantics.json lists where Hostwarden deliberately answers differently (each case's
 * `differs`); the runner asserts Hostwarden's own answer (`hostwarden`).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FlagValues } from '../../../../src/config/config.ts';
import { FLAGS } from '../../../../src/config/flags.ts';
import { parseArgs } from '../../../../src/config/parse.ts';
import { DomainFilter } from '../../../../src/endpoint/domain-filter.ts';
import { ConfigError } from '../../../../src/errors.ts';
import { zoneMatches } from '../../../../src/provider/aws/zones.ts';
import type { ZoneFilterSettings } from '../../../../src/provider/aws/zones.ts';
import { silentLogger } from '../../../../src/log.ts';
import { INMEMORY_FLAGS } from '../../../../src/provider/inmemory/flags.ts';
import { InMemoryProvider } from '../../../../src/provider/inmemory/inmemory.ts';
import { RFC2136_FLAGS, rfc2136Settings } from '../../../../src/provider/rfc2136/flags.ts';
import { CoreDnsProvider } from '../../../../src/provider/coredns/coredns.ts';
import { NameserverPool } from '../../../../src/provider/rfc2136/nameservers.ts';
import type { LoadBalancingStrategy, NameserverOp } from '../../../../src/provider/rfc2136/nameservers.ts';
import { zoneIdFilterConfigured, zoneIdMatches } from '../../../../src/provider/zone-filter.ts';
import { newEndpoint } from '../../../../src/endpoint/endpoint.ts';
import type { ProviderSpecificProperty } from '../../../../src/endpoint/endpoint.ts';
import { AzureProvider } from '../../../../src/provider/azure/azure.ts';
import { endpointToRecordSet } from '../../../../src/provider/azure/convert.ts';

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

interface SemanticsCase {
  name: string;
  upstreamTest: string;
  check: 'rfc2136-port' | 'rfc2136-alg' | 'rfc2136-zone' | 'rfc2136-random' | 'inmemory-zones' | 'aws-parent-zone' | 'aws-zone-name-filter';
  argv?: string[];
  domainFilters?: string[];
  zoneNames?: string[];
  zone?: string;
  upstream: string;
  differs: string;
  hostwarden: { port?: number; algorithm?: string; errorFlag?: string; firstHostUsed?: boolean; zones?: string[]; zoneSelected?: boolean };
}

const semantics = JSON.parse(await readFile(join(here, 'flag-semantics.json'), 'utf8')) as { upstream: string; cases: SemanticsCase[] };
const rfc2136 = (argv: readonly string[]): ReturnType<typeof rfc2136Settings> =>
  rfc2136Settings(new FlagValues(parseArgs(argv, {}, [...FLAGS, ...RFC2136_FLAGS]).values));

describe('external-dns provider flags Hostwarden answers differently (flag-semantics.json)', () => {
  for (const c of semantics.cases) {
    test(`${c.name} (differs: ${c.differs})`, () => {
      const want = c.hostwarden;
      switch (c.check) {
        case 'rfc2136-port':
          assert.equal(rfc2136(c.argv ?? []).transports[0]?.port, want.port);
          break;
        case 'rfc2136-alg':
          assert.equal(rfc2136(c.argv ?? []).key?.algorithm, want.algorithm);
          break;
        case 'rfc2136-zone':
          assert.throws(
            () => rfc2136(c.argv ?? []),
            (err: unknown) => err instanceof ConfigError && err.flag === want.errorFlag,
          );
          break;
        case 'rfc2136-random': {
          let roll = 0;
          const pool = new NameserverPool(['host1', 'host2', 'host3'], 'random', (n) => roll++ % n);
          const used = new Set(Array.from({ length: 12 }, () => pool.next('send')));
          assert.equal(used.has('host1'), want.firstHostUsed);
          break;
        }
        case 'inmemory-zones': {
          const flags = new FlagValues(parseArgs([], {}, [...FLAGS, ...INMEMORY_FLAGS]).values);
          const p = InMemoryProvider.fromConfig({ flags, domainFilters: c.domainFilters ?? [], excludeDomains: [] });
          assert.deepEqual([...p.zones], want.zones);
          break;
        }
        case 'aws-parent-zone':
        case 'aws-zone-name-filter': {
          const zone = { id: 'Z1', name: c.zone ?? '', private: false };
          const filters: ZoneFilterSettings = {
            zoneType: '',
            zoneIds: [],
            zoneNames: c.zoneNames ?? [],
            tags: [],
            domainFilter: new DomainFilter({ include: c.domainFilters ?? [] }),
          };
          assert.equal(zoneMatches(zone, filters), want.zoneSelected);
          break;
        }
      }
    });
  }
});

interface AzureMetadataCase {
  name: string;
  upstreamTest: string;
  kind: 'adjust' | 'write';
  providerSpecific: ProviderSpecificProperty[];
  /** adjust: the properties after adjustEndpoints besides azure/metadata-keys. */
  expected?: ProviderSpecificProperty[];
  expectedKeys?: string;
  /** write: the record set's properties.metadata (null: none). */
  metadata?: Record<string, string> | null;
}

const azureMetadata = JSON.parse(await readFile(join(here, 'azure-metadata.json'), 'utf8')) as { upstream: string; cases: AzureMetadataCase[] };

describe(`external-dns ${azureMetadata.upstream} (record-set metadata)`, () => {
  const noApi = {
    kind: 'public' as const,
    listZones: () => Promise.reject(new Error('not called')),
    listRecordSets: () => Promise.reject(new Error('not called')),
    putRecordSet: () => Promise.reject(new Error('not called')),
    deleteRecordSet: () => Promise.reject(new Error('not called')),
  };
  const azure = new AzureProvider({ api: noApi, logger: silentLogger() });
  const sorted = (props: readonly ProviderSpecificProperty[]): string[] => props.map((p) => `${p.name}=${p.value}`).sort();
  for (const c of azureMetadata.cases) {
    test(`${c.upstreamTest}: ${c.name}`, async () => {
      const ep = newEndpoint({ dnsName: 'test.example.com', recordType: 'A', targets: ['1.2.3.4'], providerSpecific: c.providerSpecific });
      if (c.kind === 'write') {
        assert.deepEqual(endpointToRecordSet(ep, 300).metadata ?? null, c.metadata);
        return;
      }
      const [adjusted] = await azure.adjustEndpoints([ep]);
      assert.ok(adjusted !== undefined);
      const keys = adjusted.providerSpecific.find((p) => p.name === 'azure/metadata-keys');
      assert.deepEqual(sorted(adjusted.providerSpecific.filter((p) => p !== keys)), sorted(c.expected ?? []));
      assert.equal(keys?.value, c.expectedKeys);
    });
  }
});
