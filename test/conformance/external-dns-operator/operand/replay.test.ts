/**
 * Replays upstream's operand Deployment cases (deployment-args.json) through Hostwarden's
 * buildOperand: per container, the args as multisets after the documented normalisation (and the
 * proxy variables, where a case sets them); a case with `differs` expects `hostwarden` (Hostwarden's
 * args, normalised the same way) instead, or `refused` (the webhook's field errors) for providers
 * Hostwarden does not have.
 */
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOperand } from '../../../../src/operator/operand.ts';
import type { OperandSettings } from '../../../../src/operator/operand.ts';
import type { ExternalDNS } from '../../../../src/operator/types.ts';
import { validateExternalDNS } from '../../../../src/operator/validate.ts';

interface Case {
  test: string;
  line: number;
  externalDNS: ExternalDNS;
  openshift: boolean;
  secret: boolean;
  gcpProject?: string;
  awsRegion?: string;
  /** The operator's proxy variables (upstream reads its own environment). */
  proxy?: Record<string, string>;
  trustedCAConfigMap?: string;
  expectArgs: string[][];
  /** Upstream's container env, where the case is about it (proxy settings). */
  expectEnv?: { name: string; value: string }[];
  differs?: string;
  hostwarden?: string[][];
  /** Hostwarden's answer for providers it does not have: the webhook's field errors. */
  refused?: string[];
}
interface Container {
  args: string[];
  env?: { name: string; value?: string }[];
}
interface Doc {
  normalise: { dropUpstream: string[]; dropHostwardenPrefixes: string[]; pathMap: Record<string, string> };
  cases: Case[];
}
const doc = JSON.parse(readFileSync(new URL('./deployment-args.json', import.meta.url), 'utf8')) as Doc;

const withUid = (c: Case): ExternalDNS => ({ ...c.externalDNS, metadata: { ...c.externalDNS.metadata, uid: 'u' } });

function containers(c: Case): Container[] {
  const settings: OperandSettings = {
    namespace: 'external-dns',
    image: 'hostwarden:test',
    platform: { openshift: c.openshift, gcpProject: c.gcpProject, awsRegion: c.awsRegion },
    ...(c.proxy === undefined ? {} : { proxy: c.proxy }),
    ...(c.trustedCAConfigMap === undefined ? {} : { trustedCAConfigMap: c.trustedCAConfigMap }),
  };
  const { deployment } = buildOperand(withUid(c), settings, c.secret ? { data: {} } : undefined);
  return (deployment['spec'] as { template: { spec: { containers: Container[] } } }).template.spec.containers;
}

function hostwardenArgs(c: Case): string[][] {
  return containers(c).map((k) => {
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
      if (c.refused !== undefined) {
        const problems = validateExternalDNS(withUid(c), { openshift: c.openshift }).map((e) => e.message);
        assert.deepEqual(problems, c.refused, c.differs);
        return;
      }
      if (c.expectEnv !== undefined) {
        for (const k of containers(c)) {
          const proxyEnv = (k.env ?? []).filter((e) => c.expectEnv?.some((w) => w.name === e.name));
          assert.deepEqual(proxyEnv, c.expectEnv);
        }
      }
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
