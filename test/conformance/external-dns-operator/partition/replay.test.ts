/** Replays cases.json (upstream's CredentialsRequest and GovCloud operand cases) through Hostwarden's code. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOperand } from '../../../../src/operator/operand.ts';
import { credentialsRequest } from '../../../../src/operator/platform.ts';
import type { ExternalDNS, ProviderType } from '../../../../src/operator/types.ts';

interface CrCase {
  case: string;
  provider: ProviderType;
  region: string | null;
  kind: string;
  hostedZoneResource?: string;
  actions?: string[];
  roleBindings?: unknown[];
  predefinedRoles?: string[];
}
interface OperandCase {
  case: string;
  region: string;
  env: { name: string; value: string }[];
  args: string[];
}
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const cases = JSON.parse(readFileSync(join(import.meta.dirname, 'cases.json'), 'utf8')) as { credentialsRequest: CrCase[]; operand: OperandCase[] };

const ed = (type: ProviderType): ExternalDNS => ({
  metadata: { name: 'test', uid: 'u' },
  spec: { provider: { type }, source: { type: 'OpenShiftRoute', hostnameAnnotation: 'Allow' }, zones: ['public-zone'] },
});

for (const c of cases.credentialsRequest) {
  test(`credentials request: ${c.case}`, () => {
    const spec = (credentialsRequest(ed(c.provider), 'hostwarden', c.region ?? undefined) as Obj)['spec'].providerSpec;
    assert.equal(spec.kind, c.kind);
    if (c.hostedZoneResource !== undefined) {
      const statements = spec.statementEntries as Obj[];
      assert.ok(
        statements.some((s) => s['resource'] === c.hostedZoneResource),
        JSON.stringify(statements),
      );
      const actions = new Set(statements.flatMap((s) => s['action'] as string[]));
      for (const a of c.actions ?? []) assert.ok(actions.has(a), a);
    }
    if (c.roleBindings !== undefined) assert.deepEqual(spec.roleBindings, c.roleBindings);
    if (c.predefinedRoles !== undefined) assert.deepEqual(spec.predefinedRoles, c.predefinedRoles);
  });
}

for (const c of cases.operand) {
  test(`operand: ${c.case}`, () => {
    const settings = { namespace: 'hostwarden', image: 'x', platform: { openshift: true, awsRegion: c.region } };
    const container = (buildOperand(ed('AWS'), settings, { data: { credentials: 'eA==' } }).deployment as Obj)['spec'].template.spec.containers[0];
    for (const e of c.env)
      assert.ok(
        (container.env as Obj[]).some((x) => x['name'] === e.name && x['value'] === e.value),
        e.name,
      );
    for (const a of c.args) assert.ok((container.args as string[]).includes(a), a);
  });
}
