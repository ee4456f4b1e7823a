/**
 * The upstream ExternalDNS Operator serves the same CRD (`externaldnses.externaldns.olm.openshift.io`).
 * Two operators reconciling one ExternalDNS would each run an operand for it, so the operator refuses
 * to start while upstream's Deployment runs; a CRD left behind by upstream (no conversion webhook)
 * is only reported, since its stored v1beta1 objects are exactly what Hostwarden reads.
 */
import { HostwardenError } from '../errors.ts';
import type { KubeClient } from '../kube/client.ts';
import { KubeApiError } from '../kube/errors.ts';
import type { Logger } from '../log.ts';

/** Where OLM and upstream's kustomize install it (config/default, the CSV's deploymentName). */
export const UPSTREAM_DEPLOYMENT = { namespace: 'external-dns-operator', name: 'external-dns-operator' } as const;
export const CRD_NAME = 'externaldnses.externaldns.olm.openshift.io';
/** deploy/operator/crd.json's conversion webhook Service. */
export const OWN_CONVERSION_SERVICE = 'hostwarden-operator-webhook';

interface DeploymentView {
  spec?: { replicas?: number };
}

interface CrdView {
  spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: { service?: { name?: string; namespace?: string } } } } };
}

async function getOrUndefined<T>(client: Pick<KubeClient, 'request'>, path: string, log: Logger, what: string): Promise<T | undefined> {
  try {
    return await client.request<T>('GET', path);
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) return undefined;
    // Without the right to look (an older rbac.json), say so and go on: the check is a safeguard.
    if (err instanceof KubeApiError && err.status === 403) {
      log.warn({ what }, 'cannot check for the upstream ExternalDNS Operator (forbidden)');
      return undefined;
    }
    throw err;
  }
}

/** Throws OPERATOR_CONFLICT while upstream's operator Deployment has replicas; warns about a CRD that is not Hostwarden's. */
export async function checkCoexistence(client: Pick<KubeClient, 'request'>, log: Logger): Promise<void> {
  const { namespace, name } = UPSTREAM_DEPLOYMENT;
  const dep = await getOrUndefined<DeploymentView>(client, `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`, log, 'deployment');
  if (dep !== undefined && (dep.spec?.replicas ?? 1) > 0) {
    throw new HostwardenError(
      'OPERATOR_CONFLICT',
      `the upstream ExternalDNS Operator runs (Deployment ${namespace}/${name}): both would deploy an operand for every ExternalDNS object. ` +
        `Uninstall it (its Subscription and ClusterServiceVersion, or scale the Deployment to 0) and delete its operand Deployments (namespace external-dns by default), then start hostwarden operator again; ` +
        'the ExternalDNS objects stay and are taken over (docs/operator.md, "Coexistence with the upstream operator")',
    );
  }
  const crd = await getOrUndefined<CrdView>(client, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`, log, 'crd');
  const service = crd?.spec?.conversion?.webhook?.clientConfig?.service;
  if (crd !== undefined && (crd.spec?.conversion?.strategy !== 'Webhook' || service?.name !== OWN_CONVERSION_SERVICE)) {
    log.warn(
      { crd: CRD_NAME, conversion: crd.spec?.conversion?.strategy ?? 'None' },
      'the ExternalDNS CRD is not deploy/operator/crd.json (upstream leaves one without conversion): v1alpha1 clients drop assumeRole until it is applied',
    );
  }
}
