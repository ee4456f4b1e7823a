/**
 * Replays upstream's Deployment update cases (deployment-changed.json) through buildOperand.
 * Hostwarden has no field-by-field comparison: the reconciler server-side applies the whole
 * Deployment it builds, so "is this an update" is "do the two applies differ" (`rebuild`) and
 * "is this drift written back" is "does every apply carry that field" (`sets` / `notSets`).
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOperand } from '../../../../src/operator/operand.ts';
import type { OperandSettings, SecretData } from '../../../../src/operator/operand.ts';
import type { ExternalDNS } from '../../../../src/operator/types.ts';

interface Rebuild {
  image?: string;
  zones?: string[];
  secretData?: Record<string, string>;
  /** null: the variant has no trusted CA ConfigMap. */
  trustedCAConfigMap?: null;
}
interface Case {
  test: string;
  line: number;
  upstreamChanged: boolean;
  hostwarden: { rebuild?: Rebuild; changed?: boolean; sets?: string; value?: unknown; notSets?: string };
  why?: string;
  differs?: string;
}
const doc = JSON.parse(readFileSync(new URL('./deployment-changed.json', import.meta.url), 'utf8')) as { cases: Case[] };

const BASE_SETTINGS: OperandSettings = {
  namespace: 'external-dns',
  image: 'hostwarden:test',
  platform: { openshift: false },
  trustedCAConfigMap: 'trusted-ca',
};
const BASE_SECRET: SecretData = { data: { credentials: 'b3JpZ2luYWw=' } };
const edWith = (zones: string[]): ExternalDNS => ({
  metadata: { name: 'test', uid: 'u' },
  spec: {
    zones,
    provider: { type: 'AWS', aws: { credentials: { name: 'awssecret' } } },
    source: { type: 'Service', service: { serviceType: ['LoadBalancer'] }, fqdnTemplate: ['{{.Name}}.test.com'] },
  },
});

function deployment(v: Rebuild = {}): unknown {
  const { trustedCAConfigMap: _drop, ...settings } = BASE_SETTINGS;
  const s: OperandSettings = {
    ...(v.trustedCAConfigMap === null ? settings : BASE_SETTINGS),
    ...(v.image === undefined ? {} : { image: v.image }),
  };
  const secret = v.secretData === undefined ? BASE_SECRET : { data: v.secretData };
  return buildOperand(edWith(v.zones ?? ['my-dns-public-zone']), s, secret).deployment;
}

/** The values at `path` (dot-separated, `\.` for a literal dot, `name[]` for every element of a list). */
function valuesAt(obj: unknown, path: string): unknown[] {
  let current: unknown[] = [obj];
  for (const raw of path.split(/(?<!\\)\./)) {
    const every = raw.endsWith('[]');
    const key = (every ? raw.slice(0, -2) : raw).replaceAll('\\.', '.');
    current = current.flatMap((o) => {
      const v = o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
      return every ? (Array.isArray(v) ? (v as unknown[]) : [undefined]) : [v];
    });
  }
  return current;
}

describe('upstream Deployment update cases (TestExternalDNSDeploymentChanged, TestDeploymentStrategyChanged)', () => {
  for (const c of doc.cases) {
    test(`${c.test} (deployment_test.go:${c.line})${c.differs === undefined ? '' : ' — differs'}`, () => {
      const h = c.hostwarden;
      const base = deployment();
      if (h.rebuild !== undefined) {
        assert.equal(!isDeepStrictEqual(base, deployment(h.rebuild)), h.changed, c.why ?? c.differs);
        if (c.differs === undefined && h.sets === undefined) assert.equal(h.changed, c.upstreamChanged);
      }
      if (h.sets !== undefined) {
        const values = valuesAt(base, h.sets);
        assert.ok(values.length > 0 && values.every((v) => v !== undefined), `every apply sets ${h.sets}`);
        if (h.value !== undefined)
          assert.ok(
            values.every((v) => isDeepStrictEqual(v, h.value)),
            `${h.sets} is ${JSON.stringify(h.value)}`,
          );
      }
      if (h.notSets !== undefined)
        assert.ok(
          valuesAt(base, h.notSets).every((v) => v === undefined),
          `no apply sets ${h.notSets}`,
        );
      assert.ok((c.differs ?? c.why ?? '') !== '', 'each case says why');
    });
  }
});
