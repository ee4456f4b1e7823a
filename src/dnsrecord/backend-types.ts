/**
 * The provider types this controller can serve, each built from the controller's defaults. The AWS
 * backend is imported when first used: the SDK takes a while to load and a BIND-only install
 * should not pay for it.
 */
import type { ZoneStore } from '../provider/embedded/zone-store.ts';
import type { AwsBackendDefaults } from './backends/aws-route53.ts';
import { EmbeddedBackend } from './backends/embedded.ts';
import { PowerDnsBackend } from './backends/powerdns.ts';
import { Rfc2136Backend } from './backends/rfc2136.ts';
import type { BackendType } from './reconciler.ts';

export interface BackendDefaults {
  aws: AwsBackendDefaults;
  rfc2136TimeoutMs: number;
  /** The embedded zone store, when the embedded type is served. */
  store?: ZoneStore;
}

export function backendTypes(types: readonly string[], d: BackendDefaults): Record<string, BackendType> {
  const all: Record<string, BackendType> = {
    'aws-route53': {
      needsSecret: true,
      build: async (ctx) => (await import('./backends/aws-route53.ts')).AwsRoute53Backend.build(ctx, d.aws),
    },
    rfc2136: { needsSecret: true, build: (ctx) => new Rfc2136Backend(ctx, { timeoutMs: d.rfc2136TimeoutMs }) },
    powerdns: { needsSecret: true, build: (ctx) => new PowerDnsBackend(ctx) },
  };
  const store = d.store;
  if (store !== undefined) all['embedded'] = { needsSecret: false, build: () => new EmbeddedBackend(store) };
  return Object.fromEntries(Object.entries(all).filter(([t]) => types.includes(t)));
}
