/**
 * Replays the PrivateLink cases of Hive's ClusterDeployment webhook test (validate-aws-privatelink.json,
 * facts only) through Hostwarden's standalone admission check and its AdmissionReview writer: each
 * case's verdict, and for a refusal the whole Status a client receives. A case marked `differs`
 * asserts Hostwarden's own answer, given in `hostwarden`.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { writeReview } from '../../../../src/http/admission-review.ts';
import { reviewClusterDeployment } from '../../../../src/privatelink/admission-server.ts';
import type { ClusterDeployment, HiveConfig, InventoryVPC } from '../../../../src/privatelink/types.ts';

type PrivateLink = { enabled?: boolean; additionalAllowedPrincipals?: string[] };
interface Expected {
  allowed: boolean;
  status?: unknown;
}
interface Case {
  upstreamTest: string;
  operation: string;
  privateLink: PrivateLink;
  oldPrivateLink?: PrivateLink;
  awsPrivateLink: { endpointVPCInventory?: Omit<InventoryVPC, 'subnets'>[] } | null;
  expected: Expected;
  differs?: string;
  hostwarden?: Expected;
}

const here = dirname(fileURLToPath(import.meta.url));
const data = JSON.parse(await readFile(join(here, 'validate-aws-privatelink.json'), 'utf8')) as { upstream: string; cases: Case[] };

/** Upstream's validAWSClusterDeployment() with the case's privateLink. */
function clusterDeployment(privateLink: PrivateLink): ClusterDeployment {
  return {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name: '' },
    spec: {
      clusterName: 'SameClusterName',
      platform: { aws: { region: 'test-region', credentialsSecretRef: { name: 'fake-creds-secret' }, privateLink } },
    },
  };
}

function hiveConfig(c: Case): HiveConfig | undefined {
  if (c.awsPrivateLink === null) return undefined;
  const inventory = c.awsPrivateLink.endpointVPCInventory?.map((v) => ({ ...v, subnets: [] }));
  return { metadata: { name: 'hive' }, spec: { awsPrivateLink: inventory === undefined ? {} : { endpointVPCInventory: inventory } } };
}

describe(`hive ${data.upstream}`, () => {
  for (const c of data.cases) {
    test(`${c.upstreamTest}${c.differs === undefined ? '' : ' (differs)'}`, () => {
      const verdict = reviewClusterDeployment(
        {
          uid: 'u',
          operation: c.operation,
          resource: { group: 'hive.openshift.io', version: 'v1', resource: 'clusterdeployments' },
          object: clusterDeployment(c.privateLink),
          ...(c.oldPrivateLink === undefined ? {} : { oldObject: clusterDeployment(c.oldPrivateLink) }),
        },
        { loaded: true, config: hiveConfig(c) },
      );
      const expected = c.differs === undefined ? c.expected : c.hostwarden;
      assert.ok(expected !== undefined, "a differing case gives Hostwarden's answer");
      const response = (JSON.parse(writeReview('u', verdict)) as { response: { allowed: boolean; status?: unknown } }).response;
      assert.equal(response.allowed, expected.allowed);
      if (expected.status !== undefined) assert.deepEqual(response.status, expected.status);
    });
  }
});
