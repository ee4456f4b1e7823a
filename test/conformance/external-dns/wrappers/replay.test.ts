/**
 * Replays external-dns's source-wrapper and target-filter test tables (the JSON files here, facts
 * only) through Hostwarden's wrappers as `run` builds them (wrapProcessing). Endpoints are compared
 * by name, type, TTL, targets and provider-specific properties, each list order-insensitively: the
 * planner compares them that way (external-dns sorts properties by name; Hostwarden does not need
 * to). A case marked `differs` asserts Hostwarden's own answer, given in `hostwarden`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endpointFromJSON } from '../../../../src/endpoint/json.ts';
import type { Endpoint } from '../../../../src/endpoint/endpoint.ts';
import { TargetNetFilter } from '../../../../src/endpoint/target-filter.ts';
import { ConfigError } from '../../../../src/errors.ts';
import { silentLogger } from '../../../../src/log.ts';
import { wrapProcessing } from '../../../../src/source/wrappers/build.ts';
import type { WrapperSettings } from '../../../../src/source/wrappers/build.ts';
import { parseNat64Networks } from '../../../../src/source/wrappers/nat64.ts';

interface EndpointCase {
  name: string;
  upstreamTest: string;
  wrapper: 'target-filter' | 'nat64' | 'ptr' | 'post-processor';
  options: {
    targetNetFilter?: string[];
    excludeTargetNets?: string[];
    nat64Networks?: string[];
    createPTR?: boolean;
    minTTL?: number;
    preferAlias?: boolean;
    provider?: string;
  };
  endpoints: unknown[];
  expected: unknown[];
}
interface FilterCase {
  name: string;
  upstreamTest: string;
  kind: 'match' | 'enabled';
  filter: string[];
  exclude: string[];
  targets?: string[];
  expected: boolean;
}
interface PrefixCase {
  name: string;
  upstreamTest: string;
  kind: 'nat64-prefixes';
  prefixes: string[];
  error: boolean;
}
type Case = (EndpointCase | FilterCase | PrefixCase) & { differs?: string; hostwarden?: { error?: string } };

const HERE = dirname(fileURLToPath(import.meta.url));
const FILES = readdirSync(HERE)
  .filter((f) => f.endsWith('.json'))
  .sort();

const NONE: WrapperSettings = {
  nat64Networks: [],
  targetNetFilter: [],
  excludeTargetNets: [],
  createPTR: false,
  ptrManaged: true,
  minTTL: 0,
  preferAlias: false,
  provider: '',
};

function settingsOf(c: EndpointCase): WrapperSettings {
  const o = c.options;
  return {
    ...NONE,
    ...(o.targetNetFilter === undefined ? {} : { targetNetFilter: o.targetNetFilter }),
    ...(o.excludeTargetNets === undefined ? {} : { excludeTargetNets: o.excludeTargetNets }),
    ...(o.nat64Networks === undefined ? {} : { nat64Networks: o.nat64Networks }),
    ...(o.createPTR === undefined ? {} : { createPTR: o.createPTR }),
    ...(o.minTTL === undefined ? {} : { minTTL: o.minTTL }),
    ...(o.preferAlias === undefined ? {} : { preferAlias: o.preferAlias }),
    ...(o.provider === undefined ? {} : { provider: o.provider }),
  };
}

/** One comparable line per endpoint; lists inside sorted. */
function view(eps: readonly Endpoint[]): string[] {
  return eps
    .map((e) => JSON.stringify([e.dnsName, e.recordType, e.recordTTL, [...e.targets].sort(), e.providerSpecific.map((p) => `${p.name}=${p.value}`).sort()]))
    .sort();
}

async function runWrappers(c: EndpointCase): Promise<Endpoint[]> {
  const input = c.endpoints.map((e, i) => endpointFromJSON(e, `${c.name} endpoints[${i}]`));
  const source = wrapProcessing(
    { name: 'conformance', endpoints: () => Promise.resolve(input), addEventHandler: () => () => undefined },
    settingsOf(c),
    silentLogger(),
  );
  return source.endpoints();
}

for (const file of FILES) {
  const data = JSON.parse(readFileSync(join(HERE, file), 'utf8')) as { upstream: string; cases: Case[] };
  describe(`external-dns ${data.upstream}`, () => {
    for (const c of data.cases) {
      test(`${c.upstreamTest}: ${c.name}`, async () => {
        const expectedError = c.differs === undefined ? undefined : c.hostwarden?.error;
        if ('wrapper' in c) {
          if (expectedError !== undefined) {
            await assert.rejects(runWrappers(c), (e: unknown) => e instanceof ConfigError && e.flag === expectedError);
            return;
          }
          assert.deepEqual(view(await runWrappers(c)), view(c.expected.map((e, i) => endpointFromJSON(e, `${c.name} expected[${i}]`))));
        } else if (c.kind === 'nat64-prefixes') {
          if (c.error) assert.throws(() => parseNat64Networks(c.prefixes), ConfigError);
          else parseNat64Networks(c.prefixes);
        } else if (expectedError !== undefined) {
          assert.throws(
            () => new TargetNetFilter(c.filter, c.exclude),
            (e: unknown) => e instanceof ConfigError && e.flag === expectedError,
          );
        } else if (c.kind === 'enabled') {
          assert.equal(new TargetNetFilter(c.filter, c.exclude).enabled, c.expected);
        } else {
          const filter = new TargetNetFilter(c.filter, c.exclude);
          for (const t of c.targets ?? []) assert.equal(filter.matches(t), c.expected, t);
        }
      });
    }
  });
}
