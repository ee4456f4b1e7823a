/**
 * Cache transforms: keep only the fields the sources read. An Ingress with its managedFields,
 * last-applied annotation and path rules is easily 5 kB; what the translators need is a few
 * hundred bytes. Unknown top-level fields are dropped, so new API fields cost nothing.
 */
import type { KubeMeta, KubeObject } from './resource.ts';

const DROPPED_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration'];

type Raw = Record<string, unknown>;

function rec(v: unknown): Raw | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : undefined;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function strMap(v: unknown, drop: readonly string[] = []): Record<string, string> | undefined {
  const r = rec(v);
  if (r === undefined) return undefined;
  const out: Record<string, string> = {};
  let any = false;
  for (const [k, val] of Object.entries(r)) {
    if (typeof val !== 'string' || drop.includes(k)) continue;
    out[k] = val;
    any = true;
  }
  return any ? out : undefined;
}

/** Only copies defined values, so slim objects have no `undefined` holes. */
function pick(src: Raw | undefined, keys: readonly string[]): Raw {
  const out: Raw = {};
  if (src === undefined) return out;
  for (const k of keys) if (src[k] !== undefined) out[k] = src[k];
  return out;
}

/** `keepUid` false for caches whose objects never become owners or involved objects by uid. */
export function slimMeta(raw: Raw, keepUid = true): KubeMeta {
  const m = rec(raw['metadata']) ?? {};
  const meta: KubeMeta = { name: String(m['name'] ?? '') };
  if (typeof m['namespace'] === 'string' && m['namespace'] !== '') meta.namespace = m['namespace'];
  if (keepUid && typeof m['uid'] === 'string') meta.uid = m['uid'];
  if (typeof m['resourceVersion'] === 'string') meta.resourceVersion = m['resourceVersion'];
  if (typeof m['generation'] === 'number') meta.generation = m['generation'];
  if (typeof m['deletionTimestamp'] === 'string') meta.deletionTimestamp = m['deletionTimestamp'];
  const labels = strMap(m['labels']);
  if (labels !== undefined) meta.labels = labels;
  const annotations = strMap(m['annotations'], DROPPED_ANNOTATIONS);
  if (annotations !== undefined) meta.annotations = annotations;
  return meta;
}

function base(raw: Raw, keepUid = true): KubeObject {
  return { apiVersion: String(raw['apiVersion'] ?? ''), kind: String(raw['kind'] ?? ''), metadata: slimMeta(raw, keepUid) };
}

function loadBalancerStatus(raw: Raw): Raw | undefined {
  const ingress = arr(rec(rec(raw['status'])?.['loadBalancer'])?.['ingress']).map((e) => pick(rec(e), ['ip', 'hostname']));
  return ingress.length === 0 ? undefined : { loadBalancer: { ingress } };
}

export function slimService(raw: Raw): KubeObject {
  // Neither the uid nor the selector is read (headless Services find their EndpointSlices by the
  // service-name label), and only NodePort Services publish their ports (SRV records). At 10k
  // LoadBalancer Services that is about 3 MB of cache.
  const obj = base(raw, false);
  const spec = rec(raw['spec']);
  const s = pick(spec, [
    'type',
    'clusterIP',
    'clusterIPs',
    'externalIPs',
    'externalName',
    'loadBalancerIP',
    'publishNotReadyAddresses',
    'externalTrafficPolicy',
  ]);
  const ports = s['type'] === 'NodePort' ? arr(spec?.['ports']).map((p) => pick(rec(p), ['name', 'port', 'nodePort', 'protocol'])) : [];
  if (ports.length > 0) s['ports'] = ports;
  obj['spec'] = s;
  const status = loadBalancerStatus(raw);
  if (status !== undefined) obj['status'] = status;
  return obj;
}

export function slimIngress(raw: Raw): KubeObject {
  const obj = base(raw);
  const spec = rec(raw['spec']);
  // Rule paths and backends are most of an Ingress; only hosts matter for DNS.
  const rules = arr(spec?.['rules']).map((r) => pick(rec(r), ['host']));
  const tls = arr(spec?.['tls']).map((t) => pick(rec(t), ['hosts']));
  const s = pick(spec, ['ingressClassName']);
  if (rules.length > 0) s['rules'] = rules;
  if (tls.length > 0) s['tls'] = tls;
  obj['spec'] = s;
  const status = loadBalancerStatus(raw);
  if (status !== undefined) obj['status'] = status;
  return obj;
}

/** DNSEndpoints are small and entirely meaningful: keep spec and status, drop metadata noise. */
export function slimGeneric(raw: Raw): KubeObject {
  const obj = base(raw);
  if (raw['spec'] !== undefined) obj['spec'] = raw['spec'];
  if (raw['status'] !== undefined) obj['status'] = raw['status'];
  return obj;
}

/** Gateways: addresses, the target annotation (in metadata) and what route attachment reads of the listeners. */
export function slimGateway(raw: Raw): KubeObject {
  const obj = base(raw);
  const spec = rec(raw['spec']);
  const addresses = arr(rec(raw['status'])?.['addresses']).map((a) => pick(rec(a), ['type', 'value']));
  // allowedListeners decides which ListenerSets may attach (--gateway-listener-sets).
  const s = pick(spec, ['gatewayClassName', 'allowedListeners']);
  const listeners = arr(spec?.['listeners']).map((l) => pick(rec(l), ['name', 'hostname', 'port', 'protocol', 'allowedRoutes']));
  if (listeners.length > 0) s['listeners'] = listeners;
  obj['spec'] = s;
  if (addresses.length > 0) obj['status'] = { addresses };
  return obj;
}

/** ListenerSets: their parent Gateway, listeners, and the Accepted conditions of the set and of each listener. */
export function slimListenerSet(raw: Raw): KubeObject {
  const obj = base(raw);
  const spec = rec(raw['spec']);
  obj['spec'] = {
    parentRef: pick(rec(spec?.['parentRef']), ['group', 'kind', 'namespace', 'name']),
    listeners: arr(spec?.['listeners']).map((l) => pick(rec(l), ['name', 'hostname', 'port', 'protocol', 'allowedRoutes'])),
  };
  const status = rec(raw['status']);
  const accepted = (conditions: unknown): Raw[] =>
    arr(conditions)
      .map((c) => pick(rec(c), ['type', 'status']))
      .filter((c) => c['type'] === 'Accepted');
  obj['status'] = {
    conditions: accepted(status?.['conditions']),
    listeners: arr(status?.['listeners']).map((l) => ({ ...pick(rec(l), ['name']), conditions: accepted(rec(l)?.['conditions']) })),
  };
  return obj;
}

/** Namespaces: only their labels matter (listener `allowedRoutes.namespaces.selector`). */
export function slimNamespace(raw: Raw): KubeObject {
  return base(raw);
}

/**
 * EndpointSlices: per endpoint its addresses, conditions, hostname, node and Pod reference;
 * ports, zones and hints are dropped.
 */
export function slimEndpointSlice(raw: Raw): KubeObject {
  const obj = base(raw);
  if (typeof raw['addressType'] === 'string') obj['addressType'] = raw['addressType'];
  obj['endpoints'] = arr(raw['endpoints']).map((e) => {
    const ep = rec(e);
    const out = pick(ep, ['hostname', 'nodeName']);
    const addresses = arr(ep?.['addresses']).filter((a) => typeof a === 'string');
    if (addresses.length > 0) out['addresses'] = addresses;
    const conditions = rec(ep?.['conditions']);
    const kept: Raw = {};
    for (const c of ['ready', 'serving', 'terminating']) if (typeof conditions?.[c] === 'boolean') kept[c] = conditions[c];
    if (Object.keys(kept).length > 0) out['conditions'] = kept;
    const ref = pick(rec(ep?.['targetRef']), ['kind', 'name', 'namespace']);
    if (Object.keys(ref).length > 0) out['targetRef'] = ref;
    return out;
  });
  return obj;
}

/** Pods: labels (in metadata), hostname, node and host IP; containers and conditions are dropped. */
export function slimPod(raw: Raw): KubeObject {
  const obj = base(raw);
  obj['spec'] = pick(rec(raw['spec']), ['hostname', 'nodeName']);
  obj['status'] = pick(rec(raw['status']), ['hostIP']);
  return obj;
}

/**
 * Pods of the pod source: labels and annotations (in metadata), host networking, node, Pod IPs;
 * containers, volumes and conditions are dropped (at 5k Pods the whole objects are tens of MB).
 */
export function slimPodSource(raw: Raw): KubeObject {
  const obj = base(raw, false);
  obj['spec'] = pick(rec(raw['spec']), ['hostNetwork', 'nodeName']);
  const status = rec(raw['status']);
  const s = pick(status, ['podIP']);
  const ips = arr(status?.['podIPs']).map((p) => pick(rec(p), ['ip']));
  if (ips.length > 0) s['podIPs'] = ips;
  obj['status'] = s;
  return obj;
}

/** Pods a template reads: the whole object except what external-dns's pod informer drops too (status conditions). */
export function podTemplateView(raw: Raw): KubeObject {
  const obj = templateView(raw);
  const status = rec(obj['status']);
  if (status !== undefined) {
    const { conditions: _conditions, ...rest } = status;
    obj['status'] = rest;
  }
  return obj;
}

/** Nodes: only their addresses (NodePort targets); heartbeats and conditions are dropped. */
export function slimNode(raw: Raw): KubeObject {
  const obj = base(raw);
  const addresses = arr(rec(raw['status'])?.['addresses']).map((a) => pick(rec(a), ['type', 'address']));
  obj['status'] = { addresses };
  // NodePort targets skip cordoned nodes (--exclude-unschedulable).
  if (rec(raw['spec'])?.['unschedulable'] === true) obj['spec'] = { unschedulable: true };
  return obj;
}

/**
 * Nodes a template reads: the whole Node, as external-dns's node informer keeps it, without the
 * status conditions (upstream's transform drops them too, so no template can depend on them; they
 * are a large part of a Node's status).
 */
export function nodeTemplateView(raw: Raw): KubeObject {
  const obj = templateView(raw);
  const status = rec(obj['status']);
  if (status !== undefined && 'conditions' in status) {
    const { conditions: _conditions, ...rest } = status;
    obj['status'] = rest;
  }
  return obj;
}

/** Only the Accepted condition of each parent is kept: it decides whether the route is published. */
/** OpenShift Routes: the host and, per router, what target selection reads (name, canonical hostname, Admitted). */
export function slimRoute(raw: Raw): KubeObject {
  const obj = base(raw);
  obj['spec'] = pick(rec(raw['spec']), ['host']);
  const ingress = arr(rec(raw['status'])?.['ingress']).map((i) => ({
    ...pick(rec(i), ['host', 'routerName', 'routerCanonicalHostname']),
    conditions: arr(rec(i)?.['conditions'])
      .map((c) => pick(rec(c), ['type', 'status']))
      .filter((c) => c['type'] === 'Admitted'),
  }));
  if (ingress.length > 0) obj['status'] = { ingress };
  return obj;
}

export function slimGatewayRoute(raw: Raw): KubeObject {
  const obj = base(raw);
  const spec = rec(raw['spec']);
  obj['spec'] = {
    hostnames: arr(spec?.['hostnames']).filter((h) => typeof h === 'string'),
    parentRefs: arr(spec?.['parentRefs']).map((p) => pick(rec(p), ['group', 'kind', 'namespace', 'name', 'sectionName', 'port'])),
  };
  const parents = arr(rec(raw['status'])?.['parents']).map((p) => ({
    parentRef: pick(rec(rec(p)?.['parentRef']), ['group', 'kind', 'namespace', 'name', 'sectionName', 'port']),
    conditions: arr(rec(p)?.['conditions'])
      .map((c) => pick(rec(c), ['type', 'status']))
      .filter((c) => c['type'] === 'Accepted'),
  }));
  if (parents.length > 0) obj['status'] = { parents };
  return obj;
}

/**
 * What a reflector keeps of an object nobody reads back after translating it: its identity and
 * resourceVersion, enough to key it and to tell changes apart when the cache is listed again.
 */
export function stubObject(obj: KubeObject): KubeObject {
  const meta: KubeMeta = { name: obj.metadata.name };
  if (obj.metadata.namespace !== undefined) meta.namespace = obj.metadata.namespace;
  if (obj.metadata.resourceVersion !== undefined) meta.resourceVersion = obj.metadata.resourceVersion;
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: meta };
}

/**
 * For objects a template reads: templates may name any field (`.Spec.Ports`, `.Spec.Selector`,
 * `.Spec.Rules`), so the object is kept whole except what no template should need and what makes
 * objects large: managedFields and the last-applied annotation.
 */
export function templateView(raw: Raw): KubeObject {
  const obj: Raw = { ...raw };
  const m = rec(raw['metadata']) ?? {};
  const { managedFields: _managed, ...metadata } = m;
  const annotations = strMap(m['annotations'], DROPPED_ANNOTATIONS);
  if (annotations === undefined) delete metadata['annotations'];
  else metadata['annotations'] = annotations;
  const labels = strMap(m['labels']);
  if (labels === undefined) delete metadata['labels'];
  else metadata['labels'] = labels;
  obj['metadata'] = { ...metadata, name: String(m['name'] ?? '') };
  obj['apiVersion'] = String(raw['apiVersion'] ?? '');
  obj['kind'] = String(raw['kind'] ?? '');
  return obj as KubeObject;
}
