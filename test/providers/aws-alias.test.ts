/**
 * Alias flags and annotations from a manifest to the Route53 emulator through `hostwarden run
 * --once`: the alias annotation with `A` and `AAAA` writes one alias family, `--prefer-alias`
 * makes a CNAME to a name in our own zone an alias (an A and an AAAA one, as `alias=true` does in
 * external-dns), and a second run changes nothing.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runAwsOnce } from '../support/aws/run-once.ts';
import { isolateAwsSdk } from '../support/aws/provider.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';

isolateAwsSdk();

function cnameService(name: string, hostname: string, target: string, alias?: string): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: default
  annotations:
    external-dns.kubernetes.io/hostname: ${hostname}
    external-dns.kubernetes.io/target: ${target}${alias === undefined ? '' : `\n    external-dns.kubernetes.io/alias: "${alias}"`}
spec:
  type: LoadBalancer
`;
}

describe('alias annotation values and --prefer-alias against the Route53 emulator', () => {
  let e: AwsEmulators;
  let dir: string;
  before(async () => {
    e = await startAwsEmulators();
    dir = await mkdtemp(join(tmpdir(), 'hw-aws-alias-'));
  });
  after(async () => {
    await e.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const run = (extra: string[] = []): ReturnType<typeof runAwsOnce> => runAwsOnce(e, { manifestsDir: dir, owner: 'alias', home: dir, extra });

  test('alias=A, alias=AAAA and --prefer-alias; the second run is a no-op; without the flag the CNAME returns', async () => {
    const zone = e.route53.createZone('example.org');
    const elb = 'k8s-web-1234567890.us-east-1.elb.amazonaws.com';
    await writeFile(join(dir, 'v4.yaml'), cnameService('v4', 'v4.example.org', elb, 'A'));
    await writeFile(join(dir, 'v6.yaml'), cnameService('v6', 'v6.example.org', elb, 'AAAA'));
    await writeFile(join(dir, 'own.yaml'), cnameService('own', 'own.example.org', 'v4.example.org'));
    // external-dns passes the annotation's alias only when it is true, A or AAAA; a DNSEndpoint's
    // alias=false is kept, and --prefer-alias leaves an endpoint with any alias property alone.
    await writeFile(
      join(dir, 'off.yaml'),
      `apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: off
  namespace: default
spec:
  endpoints:
    - dnsName: off.example.org
      recordType: CNAME
      targets: [v4.example.org]
      providerSpecific:
        - name: alias
          value: "false"
`,
    );

    const first = await run(['--prefer-alias']);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(e.route53.find(zone, 'v4.example.org', 'A')?.alias?.dnsName, `${elb}.`);
    assert.equal(e.route53.find(zone, 'v4.example.org', 'AAAA'), undefined);
    assert.deepEqual(e.route53.find(zone, 'v6.example.org', 'AAAA')?.alias?.dnsName, `${elb}.`);
    assert.equal(e.route53.find(zone, 'v6.example.org', 'A'), undefined);
    // alias=A and alias=AAAA are owned by the TXT record of their own type, as external-dns names it.
    assert.ok(e.route53.find(zone, 'a-v4.example.org', 'TXT') !== undefined);
    assert.ok(e.route53.find(zone, 'aaaa-v6.example.org', 'TXT') !== undefined);
    // --prefer-alias: a CNAME to our own zone's name becomes an A and an AAAA alias (alias=true) with our zone id...
    for (const type of ['A', 'AAAA']) {
      assert.deepEqual(e.route53.find(zone, 'own.example.org', type)?.alias, { hostedZoneId: zone.id, dnsName: 'v4.example.org.', evaluateTargetHealth: true });
    }
    // ...unless the endpoint says alias=false.
    assert.deepEqual(e.route53.find(zone, 'off.example.org', 'CNAME')?.values, ['v4.example.org']);

    const second = await run(['--prefer-alias']);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout + second.stderr, /"create":0|create: 0/);
    assert.doesNotMatch(second.stdout + second.stderr, /"update":[1-9]|update: [1-9]/);

    // Without --prefer-alias the CNAME to our own name is a CNAME again.
    const third = await run();
    assert.equal(third.code, 0, third.stderr);
    assert.deepEqual(e.route53.find(zone, 'own.example.org', 'CNAME')?.values, ['v4.example.org']);
    assert.equal(e.route53.find(zone, 'own.example.org', 'A'), undefined);
    assert.equal(e.route53.find(zone, 'own.example.org', 'AAAA'), undefined);
    assert.equal(e.route53.find(zone, 'a-own.example.org', 'TXT'), undefined);
  });
});
