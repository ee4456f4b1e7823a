/**
 * The `unstructured` source (external-dns's source/unstructured.go): any resource named by
 * `--unstructured-resource` in external-dns's `resource.version.group` syntax (`configmaps.v1`
 * for the core group), translated by src/source/translate/unstructured.ts.
 *
 * As external-dns, each resource is looked up in the API server's discovery documents (its kind
 * and scope come from there: list items of built-in types carry no kind). Unlike external-dns,
 * which stops at start-up, a resource the API server does not serve yet (its CRD not installed)
 * fails the source's syncs with a message naming it, and is looked up again at each sync, so the
 * source starts by itself once the CRD appears. Each resource is one reflector-backed
 * KubeObjectSource; endpoints are merged per resource, as external-dns merges per informer.
 */
import { ConfigError, SourceError, errorMessage } from '../../errors.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeResource } from '../../kube/resource.ts';
import { slimMeta, templateView } from '../../kube/slim.ts';
import type { InvalidEndpoint, Source } from '../source.ts';
import { FqdnTemplate } from '../translate/fqdn-template.ts';
import { translateUnstructured } from '../translate/unstructured.ts';
import { KubeObjectSource } from './kube-source.ts';
import { common, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';

export const UNSTRUCTURED_RESOURCE_FLAG = '--unstructured-resource';

/** One `--unstructured-resource` value, parsed. */
export interface ResourceArg {
  /** As the user wrote it, for messages. */
  arg: string;
  resource: string;
  version: string;
  /** '' for the core group. */
  group: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * external-dns's parsing (schema.ParseResourceArg after a lone dot gets a trailing one): the
 * first two dot-separated parts are resource and version, the rest is the group. Parts must be
 * what Kubernetes allows, so a typo stops start-up with the flag named, not every list with a 404.
 */
export function parseResourceArg(arg: string): ResourceArg {
  const text = (arg.split('.').length === 2 ? `${arg}.` : arg).trim();
  const parts = text.split('.');
  const fail = (why: string): never => {
    throw new ConfigError(
      `${UNSTRUCTURED_RESOURCE_FLAG}: invalid resource identifier ${JSON.stringify(arg)}: ${why}; expected format resource.version.group (e.g., certificates.v1.cert-manager.io, configmaps.v1)`,
      UNSTRUCTURED_RESOURCE_FLAG,
    );
  };
  if (parts.length < 3) fail('it has no version');
  const [resource = '', version = '', ...rest] = parts;
  const group = rest.join('.');
  if (!DNS_LABEL.test(resource)) fail(`${JSON.stringify(resource)} is not a resource name`);
  if (!DNS_LABEL.test(version)) fail(`${JSON.stringify(version)} is not a version`);
  if (group !== '' && !DNS_SUBDOMAIN.test(group)) fail(`${JSON.stringify(group)} is not an API group`);
  return { arg, resource, version, group };
}

/** Every value parsed, repeats dropped (one reflector per resource). */
export function parseResourceArgs(args: readonly string[]): ResourceArg[] {
  const seen = new Set<string>();
  const out: ResourceArg[] = [];
  for (const arg of args) {
    if (arg.trim() === '') continue;
    const r = parseResourceArg(arg);
    const key = `${r.resource}.${r.version}.${r.group}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(r);
  }
  if (out.length === 0) throw new ConfigError(`--source=unstructured needs at least one ${UNSTRUCTURED_RESOURCE_FLAG}`, UNSTRUCTURED_RESOURCE_FLAG);
  return out;
}

interface DiscoveredResource {
  name?: string;
  singularName?: string;
  namespaced?: boolean;
  kind?: string;
}

/** The part of KubeClient discovery needs. */
export interface DiscoveryClient {
  request<T>(method: string, path: string): Promise<T>;
}

/**
 * The resource as the API server describes it. The singular name is accepted too (external-dns's
 * own help names `configmap.v1`, which its exact-name check would refuse on a real cluster).
 */
export async function discoverResource(client: DiscoveryClient, r: ResourceArg): Promise<KubeResource> {
  const apiVersion = r.group === '' ? r.version : `${r.group}/${r.version}`;
  const path = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  let list: { resources?: DiscoveredResource[] };
  try {
    list = await client.request<{ resources?: DiscoveredResource[] }>('GET', path);
  } catch (err) {
    throw new SourceError(`unstructured: failed to discover resources for ${JSON.stringify(apiVersion)} (${r.arg}): ${errorMessage(err)}`, { transient: true });
  }
  const found = (list.resources ?? []).find(
    (d) =>
      typeof d.name === 'string' && !d.name.includes('/') && (d.name === r.resource || d.singularName === r.resource || d.kind?.toLowerCase() === r.resource),
  );
  if (found?.name === undefined || typeof found.kind !== 'string' || found.kind === '')
    throw new SourceError(`unstructured: resource ${JSON.stringify(r.resource)} not found in ${JSON.stringify(apiVersion)} (${r.arg})`, { transient: true });
  return { apiVersion, kind: found.kind, plural: found.name, namespaced: found.namespaced !== false };
}

/** The source over every configured resource; see the file comment. */
export class UnstructuredSource implements Source {
  readonly name = 'unstructured';
  private readonly deps: KubeSourceDeps;
  private readonly args: readonly ResourceArg[];
  private readonly template: FqdnTemplate | undefined;
  /** By `arg`, once discovered. */
  private readonly sources = new Map<string, KubeObjectSource>();
  private readonly handlers = new Map<() => void, (() => void)[]>();
  private discovering: Promise<string[]> | undefined;
  private closed = false;

  constructor(deps: KubeSourceDeps, args: readonly ResourceArg[]) {
    this.deps = deps;
    this.args = args;
    const t = deps.translateOptions.fqdnTemplate;
    this.template = t === undefined || t === '' ? undefined : (typeof t === 'string' ? FqdnTemplate.compile(t) : t).withSource('unstructured');
  }

  async endpoints(): Promise<Endpoint[]> {
    const failures = await this.discover();
    if (failures.length > 0) throw new SourceError(`${failures.join('; ')}; looked up again at the next sync`, { transient: true });
    const lists = await Promise.all(this.args.map((a) => this.sources.get(a.arg)?.endpoints() ?? Promise.resolve([])));
    return lists.flat();
  }

  invalidEndpoints(): InvalidEndpoint[] {
    return [...this.sources.values()].flatMap((s) => s.invalidEndpoints());
  }

  heldResources(): ReadonlySet<string> {
    const held = new Set<string>();
    for (const s of this.sources.values()) for (const r of s.heldResources()) held.add(r);
    return held;
  }

  addEventHandler(handler: () => void): () => void {
    const unsubscribes = [...this.sources.values()].map((s) => s.addEventHandler(handler));
    this.handlers.set(handler, unsubscribes);
    void this.discover();
    return () => {
      for (const u of this.handlers.get(handler) ?? []) u();
      this.handlers.delete(handler);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.discovering;
    await Promise.all([...this.sources.values()].map((s) => s.close()));
    this.deps.client.close();
  }

  /** Looks up the resources not found yet; returns why each still missing is. */
  private discover(): Promise<string[]> {
    this.discovering ??= this.discoverPending().finally(() => {
      this.discovering = undefined;
    });
    return this.discovering;
  }

  private async discoverPending(): Promise<string[]> {
    const pending = this.args.filter((a) => !this.sources.has(a.arg));
    const results = await Promise.all(
      pending.map(async (a) => {
        try {
          return { a, resource: await discoverResource(this.deps.client, a), error: '' };
        } catch (err) {
          return { a, resource: undefined, error: errorMessage(err) };
        }
      }),
    );
    const failures: string[] = [];
    for (const r of results) {
      if (r.resource === undefined) {
        failures.push(r.error);
        continue;
      }
      if (this.closed) continue;
      const source = this.sourceFor(r.resource);
      this.sources.set(r.a.arg, source);
      for (const [handler, unsubscribes] of this.handlers) unsubscribes.push(source.addEventHandler(handler));
    }
    return failures;
  }

  private sourceFor(resource: KubeResource): KubeObjectSource {
    const deps = this.deps;
    return new KubeObjectSource({
      ...common(deps, 'unstructured'),
      // The client is shared by every resource: closed once, by close().
      onClose: () => undefined,
      logger: deps.logger.child({ source: 'unstructured', resource: `${resource.plural}.${resource.apiVersion}` }),
      // Templates may read any field (only managedFields and the last-applied annotation go);
      // without templates only the annotations and labels are read.
      primary: reflector(
        deps,
        resource,
        this.template === undefined
          ? (raw) => ({ apiVersion: String(raw['apiVersion']), kind: String(raw['kind']), metadata: slimMeta(raw, false) })
          : templateView,
      ),
      translate: (obj) => translateUnstructured(obj, deps.translateOptions, this.template),
    });
  }
}

/** `--source=unstructured` with its `--unstructured-resource` values. */
export function unstructuredSource(deps: KubeSourceDeps, resources: readonly string[]): UnstructuredSource {
  return new UnstructuredSource(deps, parseResourceArgs(resources));
}
