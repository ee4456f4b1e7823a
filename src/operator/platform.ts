/**
 * OpenShift facts: the cluster is OpenShift when the `config.openshift.io/v1` Infrastructure named
 * `cluster` exists, and there the Cloud Credential Operator mints provider credentials from a
 * CredentialsRequest (with the permissions the upstream operator asks for) instead of the user
 * handing over a Secret.
 */
import type { KubeClient } from '../kube/client.ts';
import { KubeApiError } from '../kube/errors.ts';
import { objectPath } from '../kube/resource.ts';
import { arnPrefix } from './aws-sts.ts';
import type { PlatformFacts } from './operand.ts';
import { credentialsSecretName, operandName, ownerReference } from './operand.ts';
import { CCO_NAMESPACE, CREDENTIALS_REQUESTS, INFRASTRUCTURES } from './resources.ts';
import type { ExternalDNS } from './types.ts';

interface Infrastructure {
  status?: { platformStatus?: { type?: string; gcp?: { projectID?: string }; aws?: { region?: string } } };
}

/** Reads the Infrastructure once; a cluster without the API (404) or without access (403) is not OpenShift. */
export async function detectPlatform(client: Pick<KubeClient, 'request'>): Promise<PlatformFacts> {
  try {
    const infra = await client.request<Infrastructure>('GET', objectPath(INFRASTRUCTURES, '', 'cluster'));
    const ps = infra.status?.platformStatus;
    return { openshift: true, gcpProject: ps?.gcp?.projectID, awsRegion: ps?.type === 'AWS' ? ps.aws?.region : undefined };
  } catch (err) {
    if (err instanceof KubeApiError && (err.status === 404 || err.status === 403)) return { openshift: false };
    throw err;
  }
}

/** Providers whose credentials the Cloud Credential Operator can mint. */
export function platformSuppliesCredentials(ed: ExternalDNS, platform: PlatformFacts): boolean {
  const t = ed.spec?.provider?.type;
  return platform.openshift && (t === 'AWS' || t === 'GCP' || t === 'Azure');
}

/** `region`: the cluster's AWS region; its partition prefixes the hosted-zone ARN (as upstream's arnPrefix). */
export function credentialsRequest(ed: ExternalDNS, operandNamespace: string, region?: string): Record<string, unknown> {
  const t = ed.spec?.provider?.type;
  const providerSpec =
    t === 'AWS'
      ? {
          apiVersion: 'cloudcredential.openshift.io/v1',
          kind: 'AWSProviderSpec',
          statementEntries: [
            {
              effect: 'Allow',
              action: ['route53:ChangeResourceRecordSets', 'route53:ListResourceRecordSets'],
              resource: `${arnPrefix(region)}:route53:::hostedzone/*`,
            },
            { effect: 'Allow', action: ['route53:ListHostedZones', 'route53:ListTagsForResource', 'tag:GetResources'], resource: '*' },
            { effect: 'Allow', action: ['sts:AssumeRole'], resource: '*' },
          ],
        }
      : t === 'GCP'
        ? { apiVersion: 'cloudcredential.openshift.io/v1', kind: 'GCPProviderSpec', predefinedRoles: ['roles/dns.admin'], skipServiceCheck: true }
        : { apiVersion: 'cloudcredential.openshift.io/v1', kind: 'AzureProviderSpec', roleBindings: [{ role: 'Contributor' }] };
  return {
    apiVersion: CREDENTIALS_REQUESTS.apiVersion,
    kind: CREDENTIALS_REQUESTS.kind,
    metadata: { name: operandName(ed), namespace: CCO_NAMESPACE, ownerReferences: [ownerReference(ed)] },
    spec: {
      secretRef: { name: credentialsSecretName(ed), namespace: operandNamespace },
      serviceAccountNames: [operandName(ed)],
      providerSpec,
    },
  };
}

export function credentialsRequestPath(ed: ExternalDNS): string {
  return objectPath(CREDENTIALS_REQUESTS, CCO_NAMESPACE, operandName(ed));
}
