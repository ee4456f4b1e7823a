/**
 * What a reconcile reads besides the ClusterDeployment: the HiveConfig, Secrets (decoded), the
 * provision of an installing cluster, its deprovision. Missing objects are `undefined`, not errors.
 */
import type { KubeClient } from '../kube/client.ts';
import { isStatus } from '../kube/errors.ts';
import { objectPath } from '../kube/resource.ts';
import { CLUSTER_DEPROVISIONS, CLUSTER_PROVISIONS, HIVE_CONFIGS, HIVE_CONFIG_NAME, PL_SECRETS } from './types.ts';
import type { ClusterDeployment, ClusterDeprovision, ClusterProvision, HiveConfig, SecretRef } from './types.ts';

export type KubeRequest = Pick<KubeClient, 'request'>;

async function getOrUndefined<T>(client: KubeRequest, path: string): Promise<T | undefined> {
  try {
    return await client.request<T>('GET', path);
  } catch (err) {
    if (isStatus(err, 404)) return undefined;
    throw err;
  }
}

export function readHiveConfig(client: KubeRequest): Promise<HiveConfig | undefined> {
  return getOrUndefined<HiveConfig>(client, objectPath(HIVE_CONFIGS, '', HIVE_CONFIG_NAME));
}

export function readProvision(client: KubeRequest, namespace: string, name: string): Promise<ClusterProvision | undefined> {
  return getOrUndefined<ClusterProvision>(client, objectPath(CLUSTER_PROVISIONS, namespace, name));
}

/** Hive names a cluster's ClusterDeprovision after its ClusterDeployment. */
export function readDeprovision(client: KubeRequest, namespace: string, name: string): Promise<ClusterDeprovision | undefined> {
  return getOrUndefined<ClusterDeprovision>(client, objectPath(CLUSTER_DEPROVISIONS, namespace, name));
}

/** The Secret's data, base64-decoded; undefined when there is no such Secret. */
export async function readSecret(client: KubeRequest, namespace: string, ref: SecretRef): Promise<Record<string, string> | undefined> {
  const secret = await getOrUndefined<{ data?: Record<string, string>; stringData?: Record<string, string> }>(
    client,
    objectPath(PL_SECRETS, namespace, ref.name),
  );
  if (secret === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(secret.data ?? {})) out[k] = Buffer.from(v, 'base64').toString('utf8');
  return out;
}

export interface ClusterIdentity {
  infraID: string;
  kubeconfigSecret: SecretRef;
  /** Set while a retried install still has to remove the previous attempt's resources. */
  prevInfraID?: string | undefined;
}

/** An installed cluster's metadata, or its current provision's; undefined while that is not known yet. */
export async function clusterIdentity(client: KubeRequest, cd: ClusterDeployment): Promise<ClusterIdentity | undefined> {
  const meta = cd.spec.clusterMetadata;
  if (cd.spec.installed === true && meta?.infraID !== undefined && meta.adminKubeconfigSecretRef !== undefined) {
    return { infraID: meta.infraID, kubeconfigSecret: meta.adminKubeconfigSecretRef };
  }
  const ref = cd.status?.provisionRef?.name;
  if (ref === undefined || ref === '') return undefined;
  const prov = await readProvision(client, cd.metadata.namespace ?? '', ref);
  const infraID = prov?.spec.infraID;
  const secret = prov?.spec.adminKubeconfigSecretRef;
  if (infraID === undefined || infraID === '' || secret === undefined) return undefined;
  return { infraID, kubeconfigSecret: secret, prevInfraID: prov?.spec.prevInfraID };
}
