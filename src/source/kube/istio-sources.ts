/**
 * The istio-gateway and istio-virtualservice sources: Istio Gateways (networking.istio.io/v1, the
 * version external-dns watches) or VirtualServices with the Gateways they bind to, and the Services
 * and Ingresses that give Gateways their targets. Every cache is scoped to --namespace, as
 * upstream's informers are; Services and Ingresses keep only selectors and addresses (slim-istio.ts).
 */
import { INGRESSES, ISTIO_GATEWAYS, ISTIO_VIRTUALSERVICES, SERVICES } from '../../kube/resource.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { Reflector } from '../../kube/reflector.ts';
import { slimIngressStatus, slimIstioGateway, slimSelectedService, slimVirtualService } from '../../kube/slim-istio.ts';
import { translateIstioGateway, translateVirtualService } from './istio.ts';
import type { IstioLookups } from './istio.ts';
import { KubeObjectSource } from './kube-source.ts';
import { common, primaryView, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';

function lookupsOf(gateways: Reflector<KubeObject> | undefined, services: Reflector<KubeObject>, ingresses: Reflector<KubeObject>): IstioLookups {
  return {
    gateway: (ns, name) => gateways?.get(`${ns}/${name}`),
    ingress: (ns, name) => ingresses.get(`${ns}/${name}`),
    services: () => services.items(),
  };
}

/** `--source=istio-gateway`: each Gateway's server hosts at its ingress-gateway Services' (or annotated) targets. */
export function istioGatewaySource(deps: KubeSourceDeps): KubeObjectSource {
  const services = reflector(deps, SERVICES, slimSelectedService);
  const ingresses = reflector(deps, INGRESSES, slimIngressStatus);
  const lookups = lookupsOf(undefined, services, ingresses);
  return new KubeObjectSource({
    ...common(deps, 'istio-gateway'),
    primary: reflector(deps, ISTIO_GATEWAYS, primaryView(deps, slimIstioGateway)),
    // Slimmed to selectors and addresses, so only a change of those re-translates the Gateways.
    secondary: [services, ingresses],
    translate: (obj) => translateIstioGateway(obj, deps.translateOptions, lookups),
  });
}

/** `--source=istio-virtualservice`: each VirtualService's hosts at the targets of the Gateways it binds to. */
export function istioVirtualServiceSource(deps: KubeSourceDeps): KubeObjectSource {
  const gateways = reflector(deps, ISTIO_GATEWAYS, slimIstioGateway);
  const services = reflector(deps, SERVICES, slimSelectedService);
  const ingresses = reflector(deps, INGRESSES, slimIngressStatus);
  const lookups = lookupsOf(gateways, services, ingresses);
  return new KubeObjectSource({
    ...common(deps, 'istio-virtualservice'),
    primary: reflector(deps, ISTIO_VIRTUALSERVICES, primaryView(deps, slimVirtualService)),
    secondary: [gateways, services, ingresses],
    translate: (obj) => translateVirtualService(obj, deps.translateOptions, lookups),
  });
}
