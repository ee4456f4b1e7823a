import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../log.ts';
import { privateLinkFieldErrors } from '../admission.ts';
import { associationPlan } from './associations.ts';
import type { Ec2Port, VpcEndpoint } from '../aws/ports.ts';
import { chooseVpc, classifyEndpoints, eligibleVpcs, waitAvailable } from './endpoint.ts';
import { principalDiff } from './endpoint-service.ts';
import { StepError, isNotFound } from '../errors.ts';
import { AwsCallError } from '../errors.ts';
import { apiHostFromKubeconfig, desiredRecord } from './hosted-zone.ts';
import type { ClusterDeployment, HiveConfig } from '../types.ts';

const endpoint = (id: string, state: string, serviceName = 'svc-a', vpcId = 'vpc-1'): VpcEndpoint => ({
  id,
  state,
  serviceName,
  vpcId,
  subnetIds: [],
  eniIds: [],
  dnsEntries: [{ dnsName: `${id}.vpce.amazonaws.com`, hostedZoneId: 'Z7HUB' }],
});

const inventory = [
  {
    vpcID: 'vpc-1',
    region: 'us-east-1',
    subnets: [
      { subnetID: 's-1a', availabilityZone: 'us-east-1a' },
      { subnetID: 's-1b', availabilityZone: 'us-east-1b' },
    ],
  },
  {
    vpcID: 'vpc-2',
    region: 'us-east-1',
    subnets: [
      { subnetID: 's-2c', availabilityZone: 'us-east-1c' },
      { subnetID: 's-2a', availabilityZone: 'us-east-1a' },
    ],
  },
];

describe('privatelink decisions', () => {
  test('allowed principals change as a diff', () => {
    assert.deepEqual(principalDiff(['arn:a', 'arn:old'], ['arn:a', 'arn:new']), { add: ['arn:new'], remove: ['arn:old'] });
    assert.deepEqual(principalDiff(['arn:a'], ['arn:a', 'arn:a']), { add: [], remove: [] });
  });

  test('VPCs qualify by subnets in the service AZs; the least used wins, inventory order breaks ties', () => {
    const eligible = eligibleVpcs(inventory, ['us-east-1a']);
    assert.deepEqual(eligible, [
      { vpcId: 'vpc-1', subnetIds: ['s-1a'] },
      { vpcId: 'vpc-2', subnetIds: ['s-2a'] },
    ]);
    assert.equal(
      chooseVpc(
        eligible,
        new Map([
          ['vpc-1', 3],
          ['vpc-2', 1],
        ]),
      )?.vpcId,
      'vpc-2',
    );
    assert.equal(chooseVpc(eligible, new Map())?.vpcId, 'vpc-1');
    assert.deepEqual(
      eligibleVpcs(inventory, ['us-east-1c', 'us-east-1b']).map((p) => p.subnetIds),
      [['s-1b'], ['s-2c']],
    );
    assert.equal(chooseVpc(eligibleVpcs(inventory, ['us-east-1d']), new Map()), undefined);
  });

  test('tagged endpoints: an available one is kept, failed/rejected/other-service ones replaced, deleted ones ignored', () => {
    const r = classifyEndpoints(
      [endpoint('e1', 'pending'), endpoint('e2', 'available'), endpoint('e3', 'failed'), endpoint('e4', 'available', 'svc-old'), endpoint('e5', 'deleted')],
      'svc-a',
    );
    assert.equal(r.keep?.id, 'e2');
    assert.deepEqual(
      r.extra.map((e) => e.id),
      ['e1'],
    );
    assert.deepEqual(r.replace.map((e) => e.id).sort(), ['e3', 'e4']);
    assert.equal(classifyEndpoints([endpoint('e6', 'rejected')], 'svc-a').keep, undefined);
  });

  test('waiting for an endpoint is bounded and returns the state', async () => {
    let polls = 0;
    const ec2 = { getEndpoint: async (id: string) => (++polls >= 2 ? endpoint(id, 'available') : endpoint(id, 'pending')) } as unknown as Ec2Port;
    const deps = { ec2, log: silentLogger(), sleep: async () => undefined, waitAttempts: 5, waitDelayMs: 1 };
    assert.equal((await waitAvailable(deps, endpoint('e1', 'pending'))).kind, 'available');
    polls = -100;
    const waiting = await waitAvailable({ ...deps, waitAttempts: 2 }, endpoint('e1', 'pendingAcceptance'));
    assert.deepEqual([waiting.kind, waiting.endpoint.state], ['waiting', 'pending']);
    await assert.rejects(waitAvailable(deps, endpoint('e1', 'failed')), (e: unknown) => e instanceof StepError && e.reason === 'VPCEndpointReconcileFailed');
  });

  test('the API host comes from the current context of the admin kubeconfig', () => {
    const kc = `apiVersion: v1
clusters:
- name: other
  cluster: {server: 'https://api.other.example.com:6443'}
- name: mine
  cluster: {server: 'https://API.Mine.Example.com:6443'}
contexts:
- name: admin
  context: {cluster: mine, user: admin}
current-context: admin
`;
    assert.equal(apiHostFromKubeconfig(kc), 'api.mine.example.com');
    assert.throws(() => apiHostFromKubeconfig('clusters: []'), /no cluster server/);
    assert.throws(() => apiHostFromKubeconfig('clusters: [{name: x, cluster: {server: "https://10.0.0.1:6443"}}]'), /not a DNS name/);
  });

  test('Alias records target the first DNS entry; ARecord mode lists the sorted addresses with TTL 10', () => {
    const ep = endpoint('e1', 'available');
    assert.deepEqual(desiredRecord('api.c.example.com', 'Alias', ep, []), {
      name: 'api.c.example.com',
      type: 'A',
      alias: { hostedZoneId: 'Z7HUB', dnsName: 'e1.vpce.amazonaws.com', evaluateTargetHealth: false },
    });
    assert.deepEqual(desiredRecord('api.c.example.com', 'ARecord', ep, ['10.0.2.5', '10.0.10.4', '10.0.1.9']), {
      name: 'api.c.example.com',
      type: 'A',
      ttl: 10,
      values: ['10.0.1.9', '10.0.2.5', '10.0.10.4'],
    });
  });

  test('associations: missing ones added once, unwanted ones removed', () => {
    const plan = associationPlan(
      [
        { vpcId: 'vpc-1', region: 'us-east-1' },
        { vpcId: 'vpc-old', region: 'us-west-2' },
      ],
      [
        { vpcId: 'vpc-1', region: 'us-east-1' },
        { vpcId: 'vpc-x', region: 'us-east-2' },
        { vpcId: 'vpc-x', region: 'us-east-2' },
      ],
    );
    assert.deepEqual(
      plan.add.map((v) => v.vpcId),
      ['vpc-x'],
    );
    assert.deepEqual(plan.remove, [{ vpcId: 'vpc-old', region: 'us-west-2' }]);
  });

  test('not-found AWS codes count as done in cleanup', () => {
    const err = (name: string): AwsCallError => new AwsCallError('x', Object.assign(new Error('m'), { name }));
    assert.ok(isNotFound(err('InvalidVpcEndpointId.NotFound')));
    assert.ok(isNotFound(err('NoSuchHostedZone')));
    assert.ok(!isNotFound(err('HostedZoneNotEmpty')));
  });

  test("admission: enabling PrivateLink needs inventory VPCs in the region (Hive's errors)", () => {
    const cd = (region: string, enabled = true): ClusterDeployment => ({
      metadata: { name: 'c' },
      spec: { platform: { aws: { region, privateLink: { enabled } } } },
    });
    const hive: HiveConfig = { metadata: { name: 'hive' }, spec: { awsPrivateLink: { endpointVPCInventory: inventory } } };
    const detail = (c: ClusterDeployment, h: HiveConfig | undefined): string[] => privateLinkFieldErrors(c, h).map((e) => e.detail);
    assert.deepEqual(detail(cd('us-east-1'), hive), []);
    assert.deepEqual(detail(cd('eu-west-1', false), undefined), []);
    assert.deepEqual(detail(cd('eu-west-1'), hive), ['AWS Private Link is not supported in eu-west-1 region']);
    assert.deepEqual(detail(cd('us-east-1'), { metadata: { name: 'hive' }, spec: {} }), ['AWS PrivateLink is not supported in the environment']);
  });
});
