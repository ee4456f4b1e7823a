import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../http/admission-review.ts';
import { writeReview } from '../http/admission-review.ts';
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
  test("enabling PrivateLink in a region the inventory lacks is refused on create, as Hive's webhook answers", () => {
    const create = reviewClusterDeployment({ ...req('CREATE', cd('eu-west-1', true)), name: 'c' }, loaded);
    assert.equal(create.allowed, false);
    assert.equal(create.invalid, true);
    assert.equal(
      create.message,
      'ClusterDeployment.hive.openshift.io "c" is invalid: spec.platform.aws.privateLink.enabled: Forbidden: AWS Private Link is not supported in eu-west-1 region',
    );
    assert.deepEqual(create.fieldErrors, [
      { field: 'spec.platform.aws.privateLink.enabled', type: 'Forbidden', detail: 'AWS Private Link is not supported in eu-west-1 region' },
    ]);
    const status = (JSON.parse(writeReview('u', create)) as { response: { status: unknown } }).response.status;
    assert.deepEqual(status, {
      status: 'Failure',
      message: create.message,
      reason: 'Invalid',
      details: {
        group: 'hive.openshift.io',
        kind: 'ClusterDeployment',
        name: 'c',
        causes: [
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: AWS Private Link is not supported in eu-west-1 region',
            field: 'spec.platform.aws.privateLink.enabled',
          },
        ],
      },
      code: 422,
    });
    assert.equal(reviewClusterDeployment(req('CREATE', cd('us-east-1', true)), loaded).allowed, true);
    assert.equal(reviewClusterDeployment(req('CREATE', cd('eu-west-1', false)), loaded).allowed, true);
  });

  test('updates and deletes are not checked (Hive runs validateAWSPrivateLink on create only)', () => {
    assert.equal(reviewClusterDeployment(req('UPDATE', cd('eu-west-1', true), cd('eu-west-1', false)), loaded).allowed, true);
    assert.equal(reviewClusterDeployment(req('UPDATE', cd('eu-west-1', true), cd('eu-west-1', true)), loaded).allowed, true);
    assert.equal(reviewClusterDeployment(req('DELETE', cd('eu-west-1', true)), loaded).allowed, true);
  });

  test('other resources pass; an unloaded HiveConfig fails closed; no inventory is "not supported in the environment"', () => {
    const other = { ...req('CREATE', cd('eu-west-1', true)), resource: { group: '', version: 'v1', resource: 'services' } };
    assert.equal(reviewClusterDeployment(other, loaded).allowed, true);
    const d = reviewClusterDeployment(req('CREATE', cd('us-east-1', true)), { loaded: false, config: undefined });
    assert.equal(d.allowed, false);
    assert.match(d.message, /HiveConfig is not loaded yet/);
    assert.equal(
      reviewClusterDeployment(req('CREATE', cd('us-east-1', true)), { loaded: true, config: undefined }).message,
      'ClusterDeployment.hive.openshift.io "c" is invalid: spec.platform.aws.privateLink.enabled: Forbidden: AWS PrivateLink is not supported in the environment',
    );
  });
});
