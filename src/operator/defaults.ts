/**
 * The defaults the CRD schema declares, applied in code as well: the API server only defaults what
 * reaches it through a schema, and objects read as v1alpha1, built in tests or stored before the
 * schema changed must mean the same thing to the operator and the webhook.
 */
import type { ExternalDNSSpec } from './types.ts';

export const DEFAULT_SERVICE_TYPES: readonly string[] = ['LoadBalancer'];
export const DEFAULT_INTERVAL_SECONDS = 60;

/** A new spec with the schema defaults filled in; never mutates `spec`. */
export function withDefaults(spec: ExternalDNSSpec | undefined): ExternalDNSSpec {
  const out: ExternalDNSSpec = structuredClone(spec ?? {});
  const source = (out.source ??= {});
  source.hostnameAnnotation ??= 'Ignore';
  if (source.type === 'Service') {
    source.service ??= {};
    if (source.service.serviceType === undefined || source.service.serviceType.length === 0) source.service.serviceType = [...DEFAULT_SERVICE_TYPES];
  }
  const provider = (out.provider ??= {});
  if (provider.type === 'AWS') {
    provider.aws ??= {};
    // An empty name lets assumeRole stand alone where the platform supplies the base credentials.
    provider.aws.credentials ??= { name: '' };
  }
  for (const d of out.domains ?? []) {
    d.filterType ??= 'Include';
    d.matchType ??= 'Exact';
  }
  return out;
}
