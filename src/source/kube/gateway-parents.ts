/**
 * The parents a Gateway API route attaches to, as external-dns's gateway sources resolve them: a
 * Gateway, or with `--gateway-listener-sets` a ListenerSet (Gateway API v1.5) that adds listeners
 * to a Gateway. A ListenerSet counts only when its parent Gateway is known (within
 * --gateway-namespace, --gateway-label-filter and --gateway-name), the Gateway's
 * `spec.allowedListeners` admits the ListenerSet's namespace (default: none) and the ListenerSet is
 * Accepted; each of its listeners only when its own status entry is Accepted. The ListenerSet's
 * `target` annotation, else the Gateway's, else the Gateway's `status.addresses` are the targets;
 * routes are admitted by `allowedRoutes` relative to the ListenerSet's namespace.
 */
import type { KubeObject } from '../../kube/resource.ts';
import { isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import { asArray, asRecord, asString } from '../translate/object.ts';
import type { JsonRecord } from '../translate/object.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { labelSelectorMatches } from './label-selector.ts';

export const GATEWAY_GROUP = 'gateway.networking.k8s.io';
export const GATEWAY_KIND = 'Gateway';
export const LISTENER_SET_KIND = 'ListenerSet';

export interface ParentLookups {
  gateway: (namespace: string, name: string) => KubeObject | undefined;
  /** Undefined without --gateway-listener-sets: ListenerSet parents are then never resolved. */
  listenerSet?: ((namespace: string, name: string) => KubeObject | undefined) | undefined;
  namespaceLabels: (namespace: string) => Readonly<Record<string, string>> | undefined;
}

export interface RouteParent {
  /** The namespace `allowedRoutes.namespaces.from: Same` compares the route's with. */
  ownerNamespace: string;
  /** Attached listeners for a parentRef's sectionName ('' for all); undefined when the section does not exist. */
  listeners: (section: string) => JsonRecord[] | undefined;
  targets: string[];
}

export function resolveParent(kind: string, namespace: string, name: string, lookups: ParentLookups, options: TranslateOptions): RouteParent | undefined {
  if (kind === GATEWAY_KIND) {
    const gw = lookups.gateway(namespace, name);
    if (gw === undefined) return undefined;
    const all = listenersOf(gw);
    return { ownerNamespace: namespace, listeners: (section) => sectionOf(all, section), targets: gatewayTargets(gw, options.annotationPrefix) };
  }
  if (kind !== LISTENER_SET_KIND || lookups.listenerSet === undefined) return undefined;
  const ls = lookups.listenerSet(namespace, name);
  if (ls === undefined) return undefined;
  // ListenerSets pass the route filters, not the Gateway ones, as in external-dns.
  const annotations = ls.metadata.annotations ?? {};
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(annotations)) return undefined;
  if (isControllerMismatch(annotations, options.annotationPrefix)) return undefined;
  const spec = asRecord(ls['spec']);
  const parentRef = asRecord(spec?.['parentRef']);
  const gwNamespace = asString(parentRef?.['namespace']) || namespace;
  const gw = lookups.gateway(gwNamespace, asString(parentRef?.['name']) ?? '');
  if (gw === undefined || !allowsListenerSets(gw, namespace, lookups) || !conditionTrue(asRecord(ls['status'])?.['conditions'], 'Accepted')) return undefined;
  const statuses = asArray(asRecord(ls['status'])?.['listeners']).map(asRecord);
  const attached = listenersOf(ls).filter((l) => {
    const status = statuses.find((s) => asString(s?.['name']) === asString(l['name']));
    return status !== undefined && conditionTrue(status['conditions'], 'Accepted');
  });
  const all = listenersOf(ls);
  const override = parseAnnotations(annotations, 0, () => undefined, options.annotationPrefix).targets;
  return {
    ownerNamespace: namespace,
    // A section that exists but is not accepted publishes nothing, like one that does not exist.
    listeners: (section) => (sectionOf(all, section) === undefined ? undefined : (sectionOf(attached, section) ?? [])),
    targets: override.length > 0 ? override : gatewayTargets(gw, options.annotationPrefix),
  };
}

function listenersOf(obj: KubeObject): JsonRecord[] {
  return asArray(asRecord(obj['spec'])?.['listeners'])
    .map(asRecord)
    .filter((l): l is JsonRecord => l !== undefined);
}

function sectionOf(listeners: JsonRecord[], section: string): JsonRecord[] | undefined {
  if (section === '') return listeners.length === 0 ? undefined : listeners;
  const one = listeners.filter((l) => asString(l['name']) === section);
  return one.length === 0 ? undefined : one;
}

/** `spec.allowedListeners.namespaces.from` of the Gateway: None (default), Same, All or Selector. */
function allowsListenerSets(gw: KubeObject, lsNamespace: string, lookups: ParentLookups): boolean {
  const namespaces = asRecord(asRecord(asRecord(gw['spec'])?.['allowedListeners'])?.['namespaces']);
  switch (asString(namespaces?.['from']) ?? 'None') {
    case 'All':
      return true;
    case 'Same':
      return (gw.metadata.namespace ?? '') === lsNamespace;
    case 'Selector': {
      const labels = lookups.namespaceLabels(lsNamespace);
      return labels !== undefined && labelSelectorMatches(asRecord(namespaces?.['selector']), labels);
    }
    default:
      return false;
  }
}

export function conditionTrue(conditions: unknown, type: string): boolean {
  const c = asArray(conditions)
    .map(asRecord)
    .find((x) => asString(x?.['type']) === type);
  return asString(c?.['status']) === 'True';
}

function gatewayTargets(gw: KubeObject, annotationPrefix: string | undefined): string[] {
  const override = parseAnnotations(gw.metadata.annotations ?? {}, 0, () => undefined, annotationPrefix).targets;
  if (override.length > 0) return override;
  return asArray(asRecord(gw['status'])?.['addresses'])
    .map((a) => asString(asRecord(a)?.['value']) ?? '')
    .filter((v) => v !== '');
}
