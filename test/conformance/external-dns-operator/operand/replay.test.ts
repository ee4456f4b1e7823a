/**
 * Replays upstream's operand Deployment cases (deployment-args.json) through Hostwarden's
 * buildOperand: per container, the args as multisets after the documented normalisation; a case
 * with `differs` expects `hostwarden` (Hostwarden's args, normalised the same way) instead.
 */
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOperand } from '../../../../src/operator/operand.ts';
import type { OperandSettings } from '../../../../src/operator/operand.ts';
import type { ExternalDNS } from '../../../../src/operator/types.ts';

interface Case {
  test: string;
  line: number;
  externalDNS: ExternalDNS;
  openshift: boolean;
  secret: boolean;
  gcpProject?: string;
  awsRegion?: string;
  expectArgs: string[][];
  differs?: string;
  hostwarden?: string[][];
}
interface Doc {
  normalise: { dropUpstream: string[]; dropHostwardenPrefixes: string[]; pathMap: Record<string, string> };
  cases: Case[];
}
const doc = JSON.parse(readFileSync(new URL('./deployment-args.json', import.meta.url), 'utf8')) as Doc;

function hostwardenArgs(c: Case): string[][] {
  const settings: OperandSettings = { namespace: 'external-dns', image: 'hostwarden:test', platform: { openshift: c.openshift, gcpProject: c.gcpProject } };
  const ed: ExternalDNS = { ...c.externalDNS, metadata: { ...c.externalDNS.metadata, uid: 'u' } };
  const { deployment } = buildOperand(ed, settings, c.secret ? { data: {} } : undefined);
  const pod = (deployment['spec'] as { template: { spec: { containers: { args: string[] }[] } } }).template.spec;
  return pod.containers.map((k) => {
    const args = k.args[0] === 'run' ? k.args.slice(1) : k.args;
    return args
      .filter((a) => !doc.normalise.dropHostwardenPrefixes.some((p) => a.startsWith(p)))
      .map((a) => Object.entries(doc.normalise.pathMap).reduce((s, [from, to]) => s.replace(from, to), a));
  });
}

const sorted = (lists: string[][]): string[][] => lists.map((l) => [...l].sort());

describe('upstream operand Deployment args (TestDesiredExternalDNSDeployment)', () => {
  for (const c of doc.cases) {
    test(`${c.test} (deployment_test.go:${c.line})${c.differs === undefined ? '' : ' — differs'}`, () => {
      const got = sorted(hostwardenArgs(c));
      if (c.differs !== undefined) {
        assert.deepEqual(got, sorted(c.hostwarden ?? []), c.differs);
        return;
      }
      const want = sorted(c.expectArgs.map((l) => l.filter((a) => !doc.normalise.dropUpstream.includes(a))));
      assert.deepEqual(got, want);
    });
  }
});
