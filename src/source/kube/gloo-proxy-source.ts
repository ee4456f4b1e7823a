/**
 * The `gloo-proxy` source's caches: Gloo Proxies in the --gloo-namespace namespaces, and what their
 * translation reads (gloo-proxy.ts): Services (the Proxy's own), Ingresses (named by a Gateway's
 * `ingress` annotation), gateway.solo.io VirtualServices and Gateways (only their annotations). A
 * change of one of those re-translates only the Proxies that read or looked for it. As upstream,
 * --namespace does not apply; Proxies and Services are read in the Gloo namespace when there is one,
 * the rest in every namespace.
 */
import { GLOO_GATEWAYS, GLOO_PROXIES, GLOO_VIRTUALSERVICES, INGRESSES, SERVICES, keyOf } from '../../kube/resource.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { slimIngress, slimMeta, slimService, templateView } from '../../kube/slim.ts';
import { asArray, asRecord } from '../translate/object.ts';
import { KubeObjectSource } from './kube-source.ts';
import type { Dependency } from './kube-source.ts';
import { DEFAULT_GLOO_NAMESPACES, GLOO_SOURCE, translateGlooProxy } from './gloo-proxy.ts';
import { common, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';

type Raw = Record<string, unknown>;

const recs = (v: unknown): Raw[] =>
  asArray(v).flatMap((x) => {
    const r = asRecord(x);
    return r === undefined ? [] : [r];
  });

function pick(src: Raw | undefined, keys: readonly string[]): Raw {
  const out: Raw = {};
  for (const k of keys) if (src?.[k] !== undefined) out[k] = src[k];
  return out;
}

function slimSources(v: unknown, ref: boolean): Raw {
  return {
    sources: recs(asRecord(v)?.['sources']).map((s) =>
      ref ? { ...pick(s, ['resourceKind']), resourceRef: pick(asRecord(s['resourceRef']), ['name', 'namespace']) } : pick(s, ['kind', 'name', 'namespace']),
    ),
  };
}

function slimVirtualHost(v: unknown): Raw {
  const vh = asRecord(v);
  return { ...pick(vh, ['domains']), metadata: slimSources(vh?.['metadata'], false), metadataStatic: slimSources(vh?.['metadataStatic'], true) };
}

/** Proxies: per listener the virtual hosts' domains and sources, and the listener's static sources; routes and options are dropped. */
export function slimGlooProxy(raw: Raw): KubeObject {
  const obj: KubeObject = { apiVersion: String(raw['apiVersion'] ?? ''), kind: String(raw['kind'] ?? ''), metadata: slimMeta(raw, false) };
  const listeners = recs(asRecord(raw['spec'])?.['listeners']).map((l) => {
    const aggregate = asRecord(l['aggregateListener']);
    const shared = asRecord(asRecord(aggregate?.['httpResources'])?.['virtualHosts']) ?? {};
    return {
      httpListener: { virtualHosts: asArray(asRecord(l['httpListener'])?.['virtualHosts']).map(slimVirtualHost) },
      aggregateListener: {
        httpFilterChains: recs(aggregate?.['httpFilterChains']).map((c) => pick(c, ['virtualHostRefs'])),
        httpResources: { virtualHosts: Object.fromEntries(Object.entries(shared).map(([k, vh]) => [k, slimVirtualHost(vh)])) },
      },
      metadataStatic: slimSources(l['metadataStatic'], true),
    };
  });
  obj['spec'] = { listeners };
  return obj;
}

/** VirtualServices and Gateways of gateway.solo.io: only their annotations are read. */
export function metadataOnly(raw: Raw): KubeObject {
  return { apiVersion: String(raw['apiVersion'] ?? ''), kind: String(raw['kind'] ?? ''), metadata: slimMeta(raw, false) };
}

/** Which Proxies read (or looked for) which object, so a change re-translates only those. */
class Readers {
  private readonly byDependency = new Map<string, Set<string>>();
  private readonly byProxy = new Map<string, string[]>();

  set(proxy: string, reads: readonly string[]): void {
    this.forget(proxy);
    this.byProxy.set(proxy, [...reads]);
    for (const r of reads) this.byDependency.set(r, (this.byDependency.get(r) ?? new Set()).add(proxy));
  }

  forget(proxy: string): void {
    for (const r of this.byProxy.get(proxy) ?? []) {
      const set = this.byDependency.get(r);
      set?.delete(proxy);
      if (set?.size === 0) this.byDependency.delete(r);
    }
    this.byProxy.delete(proxy);
  }

  of(dependency: string): string[] {
    return [...(this.byDependency.get(dependency) ?? [])];
  }
}

/** Gloo Proxies (`--source=gloo-proxy`) in `namespaces` (--gloo-namespace, external-dns's default gloo-system). */
export function glooProxySource(deps: KubeSourceDeps, namespaces: readonly string[] = DEFAULT_GLOO_NAMESPACES): KubeObjectSource {
  const scope = namespaces.length === 1 ? (namespaces[0] ?? '') : '';
  const view = deps.translateOptions.fqdnTemplate === undefined ? slimGlooProxy : templateView;
  const proxies = reflector(deps, GLOO_PROXIES, view, { namespace: scope });
  const services = reflector(deps, SERVICES, slimService, { namespace: scope });
  const ingresses = reflector(deps, INGRESSES, slimIngress, { namespace: '' });
  const virtualServices = reflector(deps, GLOO_VIRTUALSERVICES, metadataOnly, { namespace: '' });
  const gateways = reflector(deps, GLOO_GATEWAYS, metadataOnly, { namespace: '' });
  const readers = new Readers();
  const dependency = (plural: string, r: Dependency['reflector']): Dependency => ({
    reflector: r,
    affects: (obj, old) => {
      const keys = readers.of(`${plural}/${keyOf((obj ?? old) as KubeObject)}`);
      for (const k of keys) if (proxies.get(k) === undefined) readers.forget(k);
      return keys;
    },
  });
  const get = (r: Dependency['reflector']) => (namespace: string, name: string) => r.get(`${namespace}/${name}`);
  // A reference looked for before its cache has listed is not missing yet: such Proxies are held
  // without a problem and translated again in the first endpoints() after every list is complete.
  const secondaries = [services, ingresses, virtualServices, gateways];
  const deferred = new Set<string>();
  return new KubeObjectSource({
    ...common(deps, GLOO_SOURCE),
    primary: proxies,
    secondary: [
      dependency('services', services),
      dependency('ingresses', ingresses),
      dependency('virtualservices', virtualServices),
      dependency('gateways', gateways),
    ],
    translate: (obj) => {
      const r = translateGlooProxy(obj, deps.translateOptions, namespaces, {
        service: get(services),
        ingress: get(ingresses),
        virtualService: get(virtualServices),
        gateway: get(gateways),
      });
      readers.set(keyOf(obj), r.reads);
      if (r.heldResource === undefined) return { endpoints: r.endpoints, problems: r.problems };
      if (!secondaries.every((s) => s.hasSynced())) {
        deferred.add(keyOf(obj));
        return { endpoints: [], problems: [], heldResource: r.heldResource };
      }
      return { endpoints: r.endpoints, problems: r.problems, heldResource: r.heldResource };
    },
    refresh: () => {
      const keys = [...deferred];
      deferred.clear();
      return Promise.resolve(keys);
    },
  });
}
