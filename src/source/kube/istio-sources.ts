/**
 * The istio-gateway and istio-virtualservice sources: Istio Gateways (networking.istio.io/v1, the
 * version external-dns watches) or VirtualServices with the Gateways they bind to, and the Services
 * and Ingresses that give Gateways their targets. Every cache is scoped to --namespace, as
 * upstream's informers are; Services and Ingresses keep only selectors and addresses (slim-istio.ts).
 * A Service, Ingress or Gateway that changes re-translates only the objects that read it, so
 * Service churn in a large cluster does not re-translate every Gateway. A Gateway finds the Services
 * its selector picks through an index of their selector pairs (selector-index.ts), not a scan.
 */
import { INGRESSES, ISTIO_GATEWAYS, ISTIO_VIRTUALSERVICES, SERVICES, keyOf } from '../../kube/resource.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { Reflector } from '../../kube/reflector.ts';
import { slimIngressStatus, slimIstioGateway, slimSelectedService, slimVirtualService } from '../../kube/slim-istio.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { gatewayKeysOf, ingressKeyOf, selectsService, translateIstioGateway, translateVirtualService } from './istio.ts';
import type { IstioLookups } from './istio.ts';
import { KubeObjectSource } from './kube-source.ts';
import { SelectorIndex } from './selector-index.ts';
import type { Dependency } from './kube-source.ts';
import { common, primaryView, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';

function lookupsOf(gateways: Reflector<KubeObject> | undefined, services: Reflector<KubeObject>, ingresses: Reflector<KubeObject>): IstioLookups {
  const index = new SelectorIndex();
  // Registered before the source's own handlers, so the index is current when they translate.
  services.onChange((_type, key, obj) => index.update(key, obj));
  return {
    gateway: (ns, name) => gateways?.get(`${ns}/${name}`),
    ingress: (ns, name) => ingresses.get(`${ns}/${name}`),
    services: (selector) => {
      const keys = index.candidates(selector);
      return keys === undefined ? services.items() : [...keys].flatMap((k) => services.get(k) ?? []);
    },
  };
}

const present = (...objs: (KubeObject | undefined)[]): KubeObject[] => objs.filter((o): o is KubeObject => o !== undefined);

/** Keys of the Gateways whose targets a Service or Ingress change may move. */
type Affects = NonNullable<Dependency['affects']>;

function gatewayReaders(gateways: Reflector<KubeObject>, options: TranslateOptions): { services: Affects; ingresses: Affects } {
  return {
    services: (obj, old) => {
      const changed = present(obj, old);
      return [...gateways.items()].flatMap((g) => (changed.some((s) => selectsService(g, s)) ? [keyOf(g)] : []));
    },
    ingresses: (obj, old) => {
      const keys = new Set(present(obj, old).map(keyOf));
      return [...gateways.items()].flatMap((g) => (keys.has(ingressKeyOf(g, options) ?? '') ? [keyOf(g)] : []));
    },
  };
}

/** `--source=istio-gateway`: each Gateway's server hosts at its ingress-gateway Services' (or annotated) targets. */
export function istioGatewaySource(deps: KubeSourceDeps): KubeObjectSource {
  const services = reflector(deps, SERVICES, slimSelectedService);
  const ingresses = reflector(deps, INGRESSES, slimIngressStatus);
  const gateways = reflector(deps, ISTIO_GATEWAYS, primaryView(deps, slimIstioGateway));
  const lookups = lookupsOf(undefined, services, ingresses);
  const readers = gatewayReaders(gateways, deps.translateOptions);
  return new KubeObjectSource({
    ...common(deps, 'istio-gateway'),
    primary: gateways,
    secondary: [
      { reflector: services, affects: readers.services },
      { reflector: ingresses, affects: readers.ingresses },
    ],
    translate: (obj) => translateIstioGateway(obj, deps.translateOptions, lookups),
  });
}

/** `--source=istio-virtualservice`: each VirtualService's hosts at the targets of the Gateways it binds to. */
export function istioVirtualServiceSource(deps: KubeSourceDeps): KubeObjectSource {
  const gateways = reflector(deps, ISTIO_GATEWAYS, slimIstioGateway);
  const services = reflector(deps, SERVICES, slimSelectedService);
  const ingresses = reflector(deps, INGRESSES, slimIngressStatus);
  const virtualServices = reflector(deps, ISTIO_VIRTUALSERVICES, primaryView(deps, slimVirtualService));
  const lookups = lookupsOf(gateways, services, ingresses);
  const readers = gatewayReaders(gateways, deps.translateOptions);
  /** The VirtualServices naming any of these Gateways. */
  const naming = (gatewayKeys: Iterable<string>): string[] => {
    const keys = new Set(gatewayKeys);
    if (keys.size === 0) return [];
    return [...virtualServices.items()].flatMap((v) => (gatewayKeysOf(v).some((k) => keys.has(k)) ? [keyOf(v)] : []));
  };
  return new KubeObjectSource({
    ...common(deps, 'istio-virtualservice'),
    primary: virtualServices,
    secondary: [
      { reflector: gateways, affects: (obj, old) => naming(present(obj, old).map(keyOf)) },
      { reflector: services, affects: (obj, old) => naming(readers.services(obj, old)) },
      { reflector: ingresses, affects: (obj, old) => naming(readers.ingresses(obj, old)) },
    ],
    translate: (obj) => translateVirtualService(obj, deps.translateOptions, lookups),
  });
}
