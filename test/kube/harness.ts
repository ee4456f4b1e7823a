/**
 * A whole Hostwarden pipeline against the test API server, in process: Kubernetes sources over
 * HTTP, the TXT registry on the inmemory provider, the controller with Events and (optionally)
 * leader election. Tests drive it by writing objects through the same HTTP client.
 */
import assert from 'node:assert/strict';
import { Controller } from '../../src/controller/controller.ts';
import { AllDomainFilters } from '../../src/endpoint/domain-filter.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { LeaderElector } from '../../src/kube/leader-election.ts';
import { RecordEventReporter } from '../../src/controller/record-events.ts';
import { collectionPath, objectPath } from '../../src/kube/resource.ts';
import type { KubeResource } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { crdSource, httpRouteSource, ingressSource, serviceSource } from '../../src/source/kube/sources.ts';
import type { KubeSourceDeps } from '../../src/source/kube/sources.ts';
import { MultiSource } from '../../src/source/wrappers/multi-source.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { loadCrd, servedApiVersions } from '../support/crds/load.ts';
import type { CrdObject } from '../support/crds/load.ts';

export type KubeSourceKind = 'service' | 'ingress' | 'crd' | 'gateway-httproute';

export interface StackOptions {
  sources: KubeSourceKind[];
  ownerId?: string;
  /** Run with leader election on this Lease (short durations for tests). */
  lease?: { name: string; leaseMs: number; renewMs: number; retryMs: number; identity: string };
  inactivityTimeoutMs?: number;
  /** Share one provider between stacks (leader failover). */
  provider?: InMemoryProvider;
}

export interface Stack {
  client: KubeClient;
  provider: InMemoryProvider;
  controller: Controller;
  sources: KubeObjectSource[];
  recorder: EventRecorder;
  elector: LeaderElector | undefined;
  /** Records in the provider, ownership TXT records excluded. */
  records(): Promise<Endpoint[]>;
  /** Stops everything; `releaseLease: false` simulates a crash (the Lease is left to expire). */
  stop(opts?: { releaseLease?: boolean }): Promise<void>;
}

export async function startStack(api: TestApiServer, opts: StackOptions): Promise<Stack> {
  const logger = silentLogger();
  const client = new KubeClient({ config: api.kubeConfig(), logger });
  const provider = opts.provider ?? new InMemoryProvider({ zones: ['example.org'] });
  const ownerId = opts.ownerId ?? 'hostwarden-test';
  const registry = new TXTRegistry(provider, { ownerId, managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger });
  const deps: KubeSourceDeps = {
    client,
    logger,
    translateOptions: {},
    namespace: '',
    syncTimeoutMs: 5000,
    ...(opts.inactivityTimeoutMs === undefined ? {} : { inactivityTimeoutMs: opts.inactivityTimeoutMs }),
  };
  const sources = opts.sources.map((s) =>
    s === 'service'
      ? serviceSource(deps)
      : s === 'ingress'
        ? ingressSource(deps, [])
        : s === 'crd'
          ? crdSource(deps, 'externaldns.k8s.io/v1alpha1', 'DNSEndpoint')
          : httpRouteSource(deps),
  );
  const recorder = new EventRecorder({ client, logger, instance: ownerId });
  const reporter = new RecordEventReporter({ recorder, enabled: new Set(['RecordReady', 'RecordDeleted', 'RecordError']) });
  let elector: LeaderElector | undefined;
  const controller = new Controller({
    source: new MultiSource({ sources }),
    registry,
    plan: { policy: 'sync', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], domainFilter: new AllDomainFilters([]), migrateFromOwner: '' },
    intervalMs: 60_000,
    minEventSyncIntervalMs: 20,
    dryRun: false,
    logger,
    backoff: { initialMs: 50, maxMs: 500 },
    onSynced: (r) => reporter.onSynced(r),
    ...(opts.lease === undefined ? {} : { canApply: () => elector?.isLeader() ?? false }),
  });
  if (opts.lease !== undefined) {
    elector = new LeaderElector({
      client,
      logger,
      namespace: 'default',
      name: opts.lease.name,
      identity: opts.lease.identity,
      leaseDurationMs: opts.lease.leaseMs,
      renewDeadlineMs: opts.lease.renewMs,
      retryPeriodMs: opts.lease.retryMs,
      onStartedLeading: () => controller.trigger(),
    });
    elector.start();
  }
  const stop = new AbortController();
  const loop = controller.run(stop.signal);
  return {
    client,
    provider,
    controller,
    sources,
    recorder,
    elector,
    records: async () => (await registry.records()).filter((e) => e.recordType !== 'TXT'),
    stop: async ({ releaseLease = true } = {}) => {
      await elector?.stop(releaseLease);
      stop.abort();
      await loop;
      await Promise.all(sources.map((s) => s.close()));
      await recorder.flush();
      client.close();
    },
  };
}

/** Polls `check` every 20 ms until it returns a value other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 10_000; i++) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Writes through the API like kubectl would. */
export class KubeWriter {
  constructor(private readonly client: KubeClient) {}

  create(
    res: KubeResource,
    obj: Record<string, unknown> & { metadata: { name: string; namespace?: string; [field: string]: unknown } },
  ): Promise<Record<string, unknown>> {
    return this.client.request('POST', collectionPath(res, obj.metadata.namespace ?? 'default'), {
      body: { apiVersion: res.apiVersion, kind: res.kind, ...obj },
    });
  }

  patch(res: KubeResource, namespace: string, name: string, patch: unknown, subresource = ''): Promise<Record<string, unknown>> {
    const path = objectPath(res, namespace, name) + (subresource === '' ? '' : `/${subresource}`);
    return this.client.request('PATCH', path, { body: patch, contentType: 'application/merge-patch+json' });
  }

  get(res: KubeResource, namespace: string, name: string): Promise<Record<string, unknown>> {
    return this.client.request('GET', objectPath(res, namespace, name));
  }

  delete(res: KubeResource, namespace: string, name: string): Promise<unknown> {
    return this.client.request('DELETE', objectPath(res, namespace, name));
  }
}

export const DNSENDPOINT_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'dnsendpoints.externaldns.k8s.io' },
  spec: {
    group: 'externaldns.k8s.io',
    scope: 'Namespaced',
    names: { plural: 'dnsendpoints', singular: 'dnsendpoint', kind: 'DNSEndpoint', listKind: 'DNSEndpointList' },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

/** A CRD whose objects may hold anything (its schema preserves unknown fields), for kinds no upstream CRD is restated for. */
export function schemalessCrd(group: string, plural: string, kind: string, version = 'v1'): CrdObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

/**
 * A Gateway API CRD as upstream publishes it (test/support/crds/gateway-api*, v1.6.1), so objects are
 * pruned and validated as a cluster would: the standard channel, except for a `version` only the
 * experimental channel serves (TCPRoute and UDPRoute at v1alpha2, which Hostwarden reads as
 * external-dns does). `kind` and `version` are checked against the CRD.
 */
export function gatewayCrd(plural: string, kind?: string, version = 'v1'): CrdObject {
  const name = `${plural}.gateway.networking.k8s.io`;
  const standard = loadCrd('gateway-api', name);
  const crd = servedApiVersions(standard).includes(`gateway.networking.k8s.io/${version}`) ? standard : loadCrd('gateway-api-experimental', name);
  if (kind !== undefined && crd.spec.names.kind !== kind) throw new Error(`${name} defines ${crd.spec.names.kind}, not ${kind}`);
  if (!servedApiVersions(crd).includes(`gateway.networking.k8s.io/${version}`)) throw new Error(`${name} does not serve ${version} in either channel`);
  return crd;
}

/** Events written about one object (events.k8s.io/v1), oldest first. */
export function eventsFor(api: TestApiServer, kind: string, name: string): { reason: string; note: string; type: string }[] {
  return api
    .list('events.k8s.io/v1', 'Event')
    .filter((e) => (e['regarding'] as { kind?: string; name?: string } | undefined)?.kind === kind && (e['regarding'] as { name?: string }).name === name)
    .map((e) => ({ reason: String(e['reason']), note: String(e['note']), type: String(e['type']) }));
}

/**
 * A CRD-based source started before its CRD exists: it answers no endpoints (the other sources keep
 * syncing) and holds every record of its kind (`kind/*`), so nothing it published before is deleted.
 */
export async function assertCrdAbsent(source: { endpoints(): Promise<unknown[]>; heldResources(): ReadonlySet<string> }, heldKind: string): Promise<void> {
  assert.deepEqual(await source.endpoints(), []);
  assert.ok(source.heldResources().has(heldKind), `held: ${[...source.heldResources()].join(', ')}`);
}
