/**
 * The provider types this controller can serve, each built from the controller's defaults. The
 * AWS, Google and Azure backends are imported when first used: their SDKs take a while to load and
 * a BIND-only install should not pay for them.
 */
import type { ZoneStore } from '../provider/embedded/record-sets.ts';
import type { AwsBackendDefaults } from './backends/aws-route53.ts';
import type { AzureBackendDefaults } from './backends/azure.ts';
import { EmbeddedBackend } from './backends/embedded.ts';
import type { GoogleBackendDefaults } from './backends/google-clouddns.ts';
import { PowerDnsBackend } from './backends/powerdns.ts';
import { Rfc2136Backend } from './backends/rfc2136.ts';
import { servedTypes } from './flags.ts';
import type { BackendType } from './reconciler.ts';

export interface BackendDefaults {
  aws: AwsBackendDefaults;
  rfc2136TimeoutMs: number;
  /** Cloud DNS endpoint override (tests); dns.googleapis.com when absent. */
  google?: GoogleBackendDefaults;
  /** ARM and login endpoint overrides (other clouds, tests); the public cloud when absent. */
  azure?: AzureBackendDefaults;
  /** The embedded zone store, when the embedded type is served. */
  store?: ZoneStore;
}

/** `types`: --dnsrecord-types entries (`TYPE` or `NAME=TYPE`). */
export function backendTypes(types: readonly string[], d: BackendDefaults): Record<string, BackendType> {
  const all: Record<string, BackendType> = {
    'aws-route53': {
      needsSecret: true,
      build: async (ctx) => (await import('./backends/aws-route53.ts')).AwsRoute53Backend.build(ctx, d.aws),
    },
    rfc2136: { needsSecret: true, build: (ctx) => new Rfc2136Backend(ctx, { timeoutMs: d.rfc2136TimeoutMs }) },
    powerdns: { needsSecret: true, build: (ctx) => new PowerDnsBackend(ctx) },
    'google-clouddns': {
      needsSecret: true,
      build: async (ctx) => (await import('./backends/google-clouddns.ts')).GoogleCloudDnsBackend.build(ctx, d.google ?? { apiEndpoint: '' }),
    },
    'azure-dns': { needsSecret: true, build: async (ctx) => (await import('./backends/azure.ts')).AzureDnsBackend.build(ctx, 'public', d.azure ?? {}) },
    'azure-private-dns': {
      needsSecret: true,
      build: async (ctx) => (await import('./backends/azure.ts')).AzureDnsBackend.build(ctx, 'private', d.azure ?? {}),
    },
  };
  const store = d.store;
  if (store !== undefined) all['embedded'] = { needsSecret: false, build: () => new EmbeddedBackend(store) };
  // Keyed by the served spec.type: `NAME=TYPE` entries serve NAME with TYPE's backend.
  return Object.fromEntries(
    servedTypes(types).flatMap(({ served, backend }) => {
      const type = all[backend];
      return type === undefined ? [] : [[served, type]];
    }),
  );
}
