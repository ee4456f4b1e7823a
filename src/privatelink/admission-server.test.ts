import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../http/admission-review.ts';
import { reviewClusterDeployment } from './admission-server.ts';
import type { ClusterDeployment, HiveConfig } from './types.ts';

const hive: HiveConfig = {
  metadata: { name: 'hive' },
  spec: { awsPrivateLink: { endpointVPCInventory: [{ vpcID: 'vpc-1', region: 'us-east-1', subnets: [] }] } },
};
const loaded = { loaded: true, config: hive };
const cd = (region: string, enabled: boolean): ClusterDeployment => ({
  metadata: { name: 'c', namespace: 'n' },
  spec: { platform: { aws: { region, privateLink: { enabled } } } },
});
const req = (operation: string, object: ClusterDeployment, oldObject?: ClusterDeployment): AdmissionRequest => ({
  uid: 'u',
  operation,
  resource: { group: 'hive.openshift.io', version: 'v1', resource: 'clusterdeployments' },
  object,
  ...(oldObject === undefined ? {} : { oldObject }),
});

describe('ClusterDeployment admission', () => {
  test('enabling PrivateLink in a region the inventory lacks is refused on create and on update', () => {
    const create = reviewClusterDeployment(req('CREATE', cd('eu-west-1', true)), loaded);
    assert.equal(create.allowed, false);
    assert.match(create.message, /not available in region "eu-west-1"/);
    assert.equal(create.fieldErrors[0]?.field, 'spec.platform.aws.privateLink.enabled');
    assert.equal(reviewClusterDeployment(req('UPDATE', cd('eu-west-1', true), cd('eu-west-1', false)), loaded).allowed, false);
    assert.equal(reviewClusterDeployment(req('CREATE', cd('us-east-1', true)), loaded).allowed, true);
    assert.equal(reviewClusterDeployment(req('CREATE', cd('eu-west-1', false)), loaded).allowed, true);
  });

  test('an update keeping PrivateLink as it was is allowed even after the inventory dropped the region', () => {
    assert.equal(reviewClusterDeployment(req('UPDATE', cd('eu-west-1', true), cd('eu-west-1', true)), loaded).allowed, true);
    assert.equal(reviewClusterDeployment(req('DELETE', cd('eu-west-1', true)), loaded).allowed, true);
  });

  test('other resources pass; an unloaded HiveConfig fails closed', () => {
    const other = { ...req('CREATE', cd('eu-west-1', true)), resource: { group: '', version: 'v1', resource: 'services' } };
    assert.equal(reviewClusterDeployment(other, loaded).allowed, true);
    const d = reviewClusterDeployment(req('CREATE', cd('us-east-1', true)), { loaded: false, config: undefined });
    assert.equal(d.allowed, false);
    assert.match(d.message, /HiveConfig is not loaded yet/);
    assert.match(
      reviewClusterDeployment(req('CREATE', cd('us-east-1', true)), { loaded: true, config: undefined }).message,
      /inventory is empty|endpointVPCInventory is empty/,
    );
  });
});
