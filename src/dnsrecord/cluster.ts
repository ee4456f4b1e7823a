/**
 * Gardener's Cluster resource as the extension library reads it for a DNSRecord: only in a shoot
 * namespace (label gardener.cloud/role=shoot, IsShootNamespace), named like the namespace
 * (GetCluster). From its embedded Shoot come IsFailed (last operation Failed) and
 * ShootNeedsForceDeletion (the force-deletion confirmation annotation parses as true).
 */
import type { KubeClient } from '../kube/client.ts';
import { objectPath } from '../kube/resource.ts';
import { CLUSTERS, FORCE_DELETION_ANNOTATION, GARDEN_ROLE_LABEL, GARDEN_ROLE_SHOOT, NAMESPACES } from './types.ts';

export interface ShootView {
  metadata?: { annotations?: Record<string, string> };
  status?: { lastOperation?: { type?: string; state?: string } | null };
}

interface NamespaceView {
  metadata: { labels?: Record<string, string> };
}

export interface ClusterView {
  metadata: { name: string };
  spec?: { shoot?: ShootView | null };
}

/** The Cluster of a shoot namespace; undefined for other namespaces (the `garden` namespace, plain clusters). */
export async function clusterFor(client: Pick<KubeClient, 'request'>, namespace: string): Promise<ClusterView | undefined> {
  const ns = await client.request<NamespaceView>('GET', objectPath(NAMESPACES, '', namespace));
  if (ns.metadata.labels?.[GARDEN_ROLE_LABEL] !== GARDEN_ROLE_SHOOT) return undefined;
  // A shoot namespace without its Cluster is an error (retried), as in GetCluster.
  return client.request<ClusterView>('GET', objectPath(CLUSTERS, '', namespace));
}

export function isFailed(cluster: ClusterView | undefined): boolean {
  return cluster?.spec?.shoot?.status?.lastOperation?.state === 'Failed';
}

/** strconv.ParseBool's true spellings. */
const TRUE_VALUES = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

export function shootNeedsForceDeletion(cluster: ClusterView | undefined): boolean {
  const value = cluster?.spec?.shoot?.metadata?.annotations?.[FORCE_DELETION_ANNOTATION];
  return value !== undefined && TRUE_VALUES.has(value);
}
