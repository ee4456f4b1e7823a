import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ListHostedZonesCommand, Route53Client } from '@aws-sdk/client-route-53';
import { EC2Client, DescribeVpcsCommand } from '@aws-sdk/client-ec2';
import type { HttpRequest } from '@smithy/types';
import { PARTITIONS, awsPartition, route53RegionFor } from './partition.ts';

/** A request handler that answers nothing over the network: it records the signed request and fails it. */
function capture(seen: HttpRequest[]): never {
  return {
    handle: (request: HttpRequest) => {
      seen.push(request);
      return Promise.reject(new Error('captured'));
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  } as never;
}

const credentials = { accessKeyId: 'AKIDPARTITION', secretAccessKey: 'secret' };

async function signed(client: Route53Client | EC2Client, send: () => Promise<unknown>, seen: HttpRequest[]): Promise<{ host: string; scope: string }> {
  await assert.rejects(send(), /captured/);
  client.destroy();
  const req = seen.at(-1)!;
  const scope = /Credential=[^/]+\/\d{8}\/([^/]+\/[^/]+)\//.exec(String(req.headers['authorization']))?.[1] ?? '';
  return { host: req.hostname, scope };
}

describe('AWS partitions', () => {
  it('maps regions to partitions', () => {
    const table: [string | undefined, string][] = [
      ['us-east-1', 'aws'],
      ['eu-west-3', 'aws'],
      [undefined, 'aws'],
      ['cn-north-1', 'aws-cn'],
      ['cn-northwest-1', 'aws-cn'],
      ['us-gov-west-1', 'aws-us-gov'],
      ['us-gov-east-1', 'aws-us-gov'],
      ['us-iso-east-1', 'aws-iso'],
      ['us-isob-east-1', 'aws-iso-b'],
      ['eu-isoe-west-1', 'aws-iso-e'],
      ['us-isof-south-1', 'aws-iso-f'],
      ['eusc-de-east-1', 'aws-eusc'],
    ];
    for (const [region, partition] of table) assert.equal(awsPartition(region), partition, String(region));
    assert.deepEqual([...new Set(table.map(([, p]) => p))].sort(), [...PARTITIONS].sort());
  });

  it("Route53 signs for the partition's home region and the SDK resolves the partition's endpoint", async () => {
    const expected: [string, string, string][] = [
      ['eu-west-1', 'route53.amazonaws.com', 'us-east-1'],
      ['cn-north-1', 'route53.amazonaws.com.cn', 'cn-northwest-1'],
      ['us-gov-east-1', 'route53.us-gov.amazonaws.com', 'us-gov-west-1'],
      ['us-iso-east-1', 'route53.c2s.ic.gov', 'us-iso-east-1'],
      ['us-isob-east-1', 'route53.sc2s.sgov.gov', 'us-isob-east-1'],
    ];
    for (const [clusterRegion, host, signingRegion] of expected) {
      const seen: HttpRequest[] = [];
      const client = new Route53Client({ region: route53RegionFor(clusterRegion), credentials, maxAttempts: 1, requestHandler: capture(seen) });
      const got = await signed(client, () => client.send(new ListHostedZonesCommand({})), seen);
      assert.deepEqual(got, { host, scope: `${signingRegion}/route53` }, clusterRegion);
    }
  });

  it('EC2 stays regional in every partition', async () => {
    for (const [region, host] of [
      ['cn-north-1', 'ec2.cn-north-1.amazonaws.com.cn'],
      ['us-gov-west-1', 'ec2.us-gov-west-1.amazonaws.com'],
    ]) {
      const seen: HttpRequest[] = [];
      const client = new EC2Client({ region, credentials, maxAttempts: 1, requestHandler: capture(seen) });
      assert.deepEqual(await signed(client, () => client.send(new DescribeVpcsCommand({})), seen), { host, scope: `${region}/ec2` });
    }
  });
});
