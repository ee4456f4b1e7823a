/** Replays pod-domain-filters.json (upstream's TestDomainFilters) through operandArgs and validateExternalDNS. */
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { operandArgs } from '../../../../src/operator/operand.ts';
import type { DomainSpec, ExternalDNS } from '../../../../src/operator/types.ts';
import { validateExternalDNS } from '../../../../src/operator/validate.ts';

interface Case {
  test: string;
  domains: DomainSpec[];
  expectArgs?: string[];
  expectError?: string;
  differs?: string;
  hostwardenError?: string;
}
const doc = JSON.parse(readFileSync(new URL('./pod-domain-filters.json', import.meta.url), 'utf8')) as { cases: Case[] };
const FILTER_FLAGS = ['--domain-filter=', '--exclude-domains=', '--regex-domain-filter=', '--regex-domain-exclusion='];

const ed = (domains: DomainSpec[]): ExternalDNS => ({
  metadata: { name: 'test', uid: 'u' },
  spec: { domains, provider: { type: 'AWS', aws: { credentials: { name: 'c' } } }, source: { type: 'Service', fqdnTemplate: ['{{.Name}}.test.com'] } },
});

describe('upstream domain filter args (TestDomainFilters)', () => {
  for (const c of doc.cases) {
    test(`${c.test}${c.differs === undefined ? '' : ' — differs'}`, () => {
      if (c.expectArgs !== undefined) {
        const args = operandArgs(ed(c.domains), { namespace: 'n', image: 'i', platform: { openshift: false } }, 0, '', true);
        assert.deepEqual(
          args.filter((a) => FILTER_FLAGS.some((f) => a.startsWith(f))),
          c.expectArgs,
        );
        assert.deepEqual(validateExternalDNS(ed(c.domains), { openshift: false }), []);
      } else {
        assert.deepEqual(
          validateExternalDNS(ed(c.domains), { openshift: false }).map((e) => e.message),
          [c.hostwardenError],
          c.differs,
        );
      }
    });
  }
});
