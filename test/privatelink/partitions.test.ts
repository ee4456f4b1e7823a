/**
 * PrivateLink outside the commercial partition: a China (cn-north-1) and a GovCloud
 * (us-gov-west-1) cluster set up to Ready against an emulator that knows partitions (keys exist in
 * one partition, ARNs carry it, Route53 only takes requests signed for the partition's home region).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { ListHostedZonesCommand, Route53Client } from '@aws-sdk/client-route-53';
import { findCondition } from '../../src/privatelink/conditions.ts';
import { READY } from '../../src/privatelink/types.ts';
import { endState } from './end-state.ts';
import { API_HOST, startWorld } from './world.ts';
import type { World, WorldOptions } from './world.ts';

async function withWorld(opts: WorldOptions, fn: (w: World) => Promise<void>): Promise<void> {
  const w = await startWorld({ verifySignatures: true, ...opts });
  try {
    await fn(w);
  } finally {
    await w.stop();
  }
}

const CASES = [
  {
    region: 'cn-north-1',
    partition: 'aws-cn',
    route53Region: 'cn-northwest-1',
    serviceName: /^cn\.com\.amazonaws\.vpce\.cn-north-1\.vpce-svc-/,
    dns: /vpce\.amazonaws\.com\.cn\.$/,
  },
  {
    region: 'us-gov-west-1',
    partition: 'aws-us-gov',
    route53Region: 'us-gov-west-1',
    serviceName: /^com\.amazonaws\.vpce\.us-gov-west-1\.vpce-svc-/,
    dns: /vpce\.amazonaws\.com\.$/,
  },
];

describe('PrivateLink in other partitions', () => {
  for (const c of CASES) {
    test(`a ${c.region} cluster reaches Ready; Route53 signed for ${c.route53Region}, the rest regional`, () =>
      withWorld({ region: c.region, associateOther: true }, async (w) => {
        await w.reconcile();
        await w.reconcile();
        const ready = findCondition(w.cd().status?.conditions, READY);
        assert.equal(ready?.status, 'True', ready?.message);
        const pl = w.cd().status?.platformStatus?.aws?.privateLink;
        assert.match(pl?.vpcEndpointService?.name ?? '', c.serviceName);
        assert.equal(pl?.vpcEndpointService?.defaultAllowedPrincipal, `arn:${c.partition}:iam::222222222222:user/hive`);
        const s = endState(w);
        assert.equal(s.endpoints.length, 1);
        assert.deepEqual(s.zones[0]?.vpcs, [w.vpcs.a, w.vpcs.other].sort());
        assert.match(s.zones[0]?.records[0] ?? '', new RegExp(`^${API_HOST.replace(/\./g, '\\.')}\\. A alias `));
        assert.match((s.zones[0]?.records[0] ?? '').split(' ')[3] ?? '', c.dns);
        const regions = (service: string): string[] => [...new Set(w.aws.aws.log.filter((l) => l.service === service).map((l) => l.region))];
        assert.deepEqual(regions('route53'), [c.route53Region]);
        assert.deepEqual(regions('ec2'), [c.region]);
        assert.deepEqual(regions('elasticloadbalancing'), [c.region]);
      }));
  }

  test('the emulator refuses a key outside its partition and Route53 signed for another region, as AWS does', () =>
    withWorld({ region: 'cn-north-1' }, async (w) => {
      const ec2 = (region: string, id: typeof w.hub): EC2Client => new EC2Client({ region, endpoint: w.aws.url, credentials: id, maxAttempts: 1 });
      const r53 = (region: string): Route53Client => new Route53Client({ region, endpoint: w.aws.url, credentials: w.hub, maxAttempts: 1 });
      const wrongPartition = ec2('us-east-1', w.hub);
      const commercialKey = ec2('cn-north-1', w.aws.aws.rootIdentity);
      const regional = r53('cn-north-1');
      const home = r53('cn-northwest-1');
      try {
        await assert.rejects(wrongPartition.send(new DescribeVpcsCommand({})), { name: 'InvalidClientTokenId' });
        await assert.rejects(commercialKey.send(new DescribeVpcsCommand({})), { name: 'InvalidClientTokenId' });
        await assert.rejects(regional.send(new ListHostedZonesCommand({})), {
          name: 'SignatureDoesNotMatch',
          message: "Credential should be scoped to a valid region, not 'cn-north-1'. ",
        });
        await home.send(new ListHostedZonesCommand({}));
      } finally {
        for (const c of [wrongPartition, commercialKey, regional, home]) c.destroy();
      }
    }));
});
