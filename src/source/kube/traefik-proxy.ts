/**
 * external-dns's `traefik-proxy` source: IngressRoutes, IngressRouteTCPs and IngressRouteUDPs of
 * Traefik's `traefik.io/v1alpha1` group and, with --traefik-enable-legacy, of the
 * `traefik.containo.us/v1alpha1` group Traefik v2 used before v2.10 (--traefik-disable-new leaves
 * out the new group). One reflector-backed KubeObjectSource per enabled resource (six at most, all
 * on one API client), read as one source: their endpoints are merged as upstream's Endpoints()
 * merges them, and an object is keyed within its own resource, so an IngressRoute and an
 * IngressRouteTCP of the same name never shadow each other.
 */
import type { Config } from '../../config/config.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { kubeClientFromConfig } from '../../kube/flags.ts';
import type { Reflector } from '../../kube/reflector.ts';
import {
  LEGACY_TRAEFIK_INGRESSROUTES,
  LEGACY_TRAEFIK_INGRESSROUTETCPS,
  LEGACY_TRAEFIK_INGRESSROUTEUDPS,
  TRAEFIK_INGRESSROUTES,
  TRAEFIK_INGRESSROUTETCPS,
  TRAEFIK_INGRESSROUTEUDPS,
} from '../../kube/resource.ts';
import type { KubeObject, KubeResource } from '../../kube/resource.ts';
import { stubObject } from '../../kube/slim.ts';
import type { InvalidEndpoint, Source } from '../source.ts';
import type { KubeFactoryDeps } from './factory.ts';
import { translateOptionsOf } from './factory.ts';
import { KubeObjectSource } from './kube-source.ts';
import { mergeEndpoints } from './merge.ts';
import { registerReflectorMetrics } from './metrics.ts';
import { common, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';
import { traefikRouteView, translateTraefikRoute } from './traefik-route.ts';
import type { TraefikRouteKind } from './traefik-route.ts';

export const TRAEFIK_PROXY_SOURCE = 'traefik-proxy';

/** --traefik-enable-legacy and --traefik-disable-new (both off by default, as upstream). */
export interface TraefikGroups {
  enableLegacy?: boolean;
  disableNew?: boolean;
}

/** The reflectors of the enabled resources (one call per resource: the RBAC tests scan these). */
function traefikReflectors(deps: KubeSourceDeps, groups: TraefikGroups): { kind: TraefikRouteKind; reflector: Reflector<KubeObject> }[] {
  const view = traefikRouteView(deps.translateOptions.fqdnTemplate);
  // Nothing reads a route back after translating it (no dependent objects): the cache keeps a stub.
  const keep = { retain: stubObject };
  const out: { kind: TraefikRouteKind; reflector: Reflector<KubeObject> }[] = [];
  if (groups.disableNew !== true) {
    out.push({ kind: 'IngressRoute', reflector: reflector(deps, TRAEFIK_INGRESSROUTES, view, keep) });
    out.push({ kind: 'IngressRouteTCP', reflector: reflector(deps, TRAEFIK_INGRESSROUTETCPS, view, keep) });
    out.push({ kind: 'IngressRouteUDP', reflector: reflector(deps, TRAEFIK_INGRESSROUTEUDPS, view, keep) });
  }
  if (groups.enableLegacy === true) {
    out.push({ kind: 'IngressRoute', reflector: reflector(deps, LEGACY_TRAEFIK_INGRESSROUTES, view, keep) });
    out.push({ kind: 'IngressRouteTCP', reflector: reflector(deps, LEGACY_TRAEFIK_INGRESSROUTETCPS, view, keep) });
    out.push({ kind: 'IngressRouteUDP', reflector: reflector(deps, LEGACY_TRAEFIK_INGRESSROUTEUDPS, view, keep) });
  }
  return out;
}

export class TraefikProxySource implements Source {
  readonly name = TRAEFIK_PROXY_SOURCE;
  private readonly parts: readonly KubeObjectSource[];
  private readonly onClose: () => void;

  /** `parts` are the per-resource sources; `onClose` releases what they share (the API client). */
  constructor(parts: readonly KubeObjectSource[], onClose: () => void) {
    this.parts = parts;
    this.onClose = onClose;
  }

  static fromConfig(cfg: Config, deps: KubeFactoryDeps): TraefikProxySource {
    const groups = { enableLegacy: cfg.flags.bool('traefik-enable-legacy'), disableNew: cfg.flags.bool('traefik-disable-new') };
    // Upstream then reads nothing, silently; say so once.
    if (groups.disableNew && !groups.enableLegacy)
      deps.logger.warn({ source: TRAEFIK_PROXY_SOURCE }, '--traefik-disable-new without --traefik-enable-legacy: the traefik-proxy source reads no resources');
    const inactivity = cfg.flags.num('kube-watch-inactivity-timeout');
    const metrics = deps.metrics;
    return traefikProxySource(
      {
        client: kubeClientFromConfig(cfg, { ...deps, rateLimited: true }),
        logger: deps.logger,
        translateOptions: translateOptionsOf(cfg),
        namespace: cfg.flags.str('namespace'),
        ...(inactivity > 0 ? { inactivityTimeoutMs: inactivity } : {}),
        ...(deps.onProblem === undefined ? {} : { onProblem: deps.onProblem }),
        ...(metrics === undefined
          ? {}
          : {
              // Both groups have the same plurals: the legacy ones are told apart by their group.
              onReflector: (resource: KubeResource, r: Reflector<KubeObject>) =>
                registerReflectorMetrics(metrics, TRAEFIK_PROXY_SOURCE, metricResource(resource), r),
            }),
      },
      groups,
    );
  }

  start(): void {
    for (const p of this.parts) p.start();
  }

  async endpoints(): Promise<Endpoint[]> {
    const lists = await Promise.all(this.parts.map((p) => p.endpoints()));
    return mergeEndpoints(lists.flat());
  }

  invalidEndpoints(): InvalidEndpoint[] {
    return this.parts.flatMap((p) => p.invalidEndpoints());
  }

  heldResources(): ReadonlySet<string> {
    const held = new Set<string>();
    for (const p of this.parts) for (const r of p.heldResources()) held.add(r);
    return held;
  }

  addEventHandler(handler: () => void): () => void {
    const unsubscribes = this.parts.map((p) => p.addEventHandler(handler));
    return () => {
      for (const u of unsubscribes) u();
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.parts.map((p) => p.close()));
    this.onClose();
  }

  /** Objects cached over every enabled resource, for tests. */
  objectCount(): number {
    return this.parts.reduce((n, p) => n + p.objectCount(), 0);
  }
}

/** The `resource` label of a reflector's metrics: the plural, with the group for the legacy one. */
function metricResource(resource: KubeResource): string {
  const group = resource.apiVersion.split('/')[0] ?? '';
  return group === LEGACY_TRAEFIK_INGRESSROUTES.apiVersion.split('/')[0] ? `${resource.plural}.${group}` : resource.plural;
}

/** The traefik-proxy source over `deps` (tests build it directly; the CLI through fromConfig). */
export function traefikProxySource(deps: KubeSourceDeps, groups: TraefikGroups = {}): TraefikProxySource {
  const { onClose: _shared, merge: _merged, ...shared } = common(deps, TRAEFIK_PROXY_SOURCE);
  const parts = traefikReflectors(deps, groups).map(
    ({ kind, reflector: primary }) => new KubeObjectSource({ ...shared, primary, translate: (obj) => translateTraefikRoute(kind, obj, deps.translateOptions) }),
  );
  return new TraefikProxySource(parts, () => deps.client.close());
}
