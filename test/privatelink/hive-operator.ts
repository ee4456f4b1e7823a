/**
 * What hive-operator writes to HiveConfig `hive` when it manages it (pkg/operator/hive: the first
 * reconcile initializes the `Ready` condition and records observedGeneration through the status
 * subresource), so tests can stand a Hive installation beside Hostwarden; and the edit an
 * administrator makes to disable Hive's own awsprivatelink controller.
 */
import type { KubeClient } from '../../src/kube/client.ts';

const HIVE_CONFIG = '/apis/hive.openshift.io/v1/hiveconfigs/hive';

/** hive-operator's status write: Ready=True (DeploymentSuccess), observedGeneration, configApplied. */
export async function hiveOperatorReconciled(client: Pick<KubeClient, 'request'>): Promise<void> {
  const current = await client.request<{ metadata: { generation?: number; resourceVersion?: string } }>('GET', HIVE_CONFIG);
  await client.request('PUT', `${HIVE_CONFIG}/status`, {
    body: {
      ...current,
      status: {
        observedGeneration: current.metadata.generation ?? 1,
        configApplied: true,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'DeploymentSuccess',
            message: 'Hive is deployed successfully',
            lastProbeTime: new Date().toISOString(),
            lastTransitionTime: new Date().toISOString(),
          },
        ],
      },
    },
  });
}

/** `kubectl patch hiveconfig hive --type=merge -p '{"spec":{"disabledControllers":[…]}}'`: replaces the whole list. */
export async function setDisabledControllers(client: Pick<KubeClient, 'request'>, names: string[]): Promise<void> {
  await client.request('PATCH', HIVE_CONFIG, { body: { spec: { disabledControllers: names } }, contentType: 'application/merge-patch+json' });
}
