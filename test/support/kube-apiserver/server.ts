/**
 * An in-process Kubernetes API server for tests: real wire protocol over HTTP on 127.0.0.1, an
 * in-memory store, and fault injection. Clients (`@kubernetes/client-node`, kubectl) talk to it as to
 * kube-apiserver; tests can also reach the store directly.
 *
 *   const api = await startTestApiServer();
 *   const core = api.kubeConfig().makeApiClient(CoreV1Api);
 *   await core.createNamespacedService({ namespace: 'default', body: svc });
 *   api.dropWatches();
 *   await api.stop();
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify as toYaml } from 'yaml';
import { FaultPlan } from './faults.ts';
import type { RequestFilter, RequestInfo } from './faults.ts';
import { createHandler } from './http.ts';
import type { SubjectAccessReviewAnswer } from './http.ts';
import { ResourceRegistry } from './resources.ts';
import type { ResourceType } from './resources.ts';
import { accessOfReview, escalationDenied, RbacAuthorizer } from './rbac.ts';
import type { AccessUser } from './rbac.ts';
import { ObjectStore } from './store.ts';
import { ApiError, isRecord } from './types.ts';
import type { KubeObject } from './types.ts';
import { WatchHub } from './watch.ts';

export type { KubeObject, RequestFilter, SubjectAccessReviewAnswer };

export interface TestApiServerOptions {
  /** Changes kept for watch replay and continue tokens (older ones get 410 Gone). Default 10000. */
  historyLimit?: number;
  /** Interval of BOOKMARK events on watches that allow them. Default 1000 ms. */
  bookmarkIntervalMs?: number;
  now?: () => Date;
  /** Bearer token written into kubeconfigs. Default 'test-token'. */
  token?: string;
  /** Answer 401 to requests without `Authorization: Bearer <token>`. Default false. */
  requireToken?: boolean;
  /** Namespaces created at start besides `default` and `kube-system`. */
  namespaces?: string[];
  /**
   * How SubjectAccessReviews are answered: 'allow-all' (the default, unless a test sets its own
   * answer) or 'rbac', from the Roles, ClusterRoles and bindings stored in this server.
   */
  authorization?: 'allow-all' | 'rbac';
  /**
   * Users the server knows by bearer token. With `authorization: 'rbac'`, every resource request
   * carrying one of these tokens is authorized as that user by the stored RBAC objects (403
   * Forbidden with kube-apiserver's message otherwise), as a real API server does; requests with
   * the default token stay unrestricted, so tests can set up objects as an administrator.
   */
  users?: Record<string, AccessUser>;
}

/** What the direct helpers accept: any object shape with apiVersion, kind and a name. */
export interface ObjectInput {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    resourceVersion?: string;
  };
  [field: string]: unknown;
}

export interface ObjectRefLike {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** The version part of an apiVersion (`group/v1` → `v1`, `v1` → `v1`). */
function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
}

export class TestApiServer {
  readonly url: string;
  private readonly token: string;
  private sarAnswer: SubjectAccessReviewAnswer = () => ({ allowed: true, reason: 'test API server allows everything by default' });

  constructor(
    private readonly server: Server,
    private readonly resources: ResourceRegistry,
    private readonly store: ObjectStore,
    private readonly watches: WatchHub,
    private readonly faults: FaultPlan,
    token: string,
  ) {
    const addr = server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${addr.port}`;
    this.token = token;
  }

  /** A KubeConfig for client-node pointing at this server. */
  kubeConfig(namespace = 'default'): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'test', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'test', token: this.token }],
      contexts: [{ name: 'test', cluster: 'test', user: 'test', namespace }],
      currentContext: 'test',
    });
    return kc;
  }

  /**
   * Writes a kubeconfig file (for child processes and kubectl) into `dir`; returns its path. It sets
   * insecure-skip-tls-verify because client-node refuses plain-HTTP servers without it.
   */
  async writeKubeconfig(dir: string, namespace = 'default', token = this.token): Promise<string> {
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server: this.url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'test', user: { token } }],
      contexts: [{ name: 'test', context: { cluster: 'test', user: 'test', namespace } }],
      'current-context': 'test',
      preferences: {},
    };
    const path = join(dir, 'kubeconfig');
    await writeFile(path, toYaml(doc), { mode: 0o600 });
    return path;
  }

  async stop(): Promise<void> {
    this.watches.dropAll();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private typeOf(apiVersion: string, kind: string): ResourceType {
    const t = this.resources.byKind(apiVersion, kind);
    if (t === undefined || t.createOnly) throw new ApiError(404, 'NotFound', `no resource for ${apiVersion} ${kind}`);
    return t;
  }

  private nsOf(t: ResourceType, namespace: string | undefined): string {
    return t.namespaced ? (namespace ?? 'default') : '';
  }

  /**
   * Stores an object as given (status included), without HTTP; watches see it. Custom resources are
   * pruned and validated by their CRD's schema unless `bypassSchema`: that stands for an object stored
   * before its CRD had this schema (kube-apiserver never revalidates stored objects), for tests of
   * readers that must survive objects of an unexpected shape.
   */
  create(input: ObjectInput, options: { bypassSchema?: boolean } = {}): KubeObject {
    const obj = input as KubeObject;
    const t = this.typeOf(obj.apiVersion ?? '', obj.kind ?? '');
    return this.store.create(t, this.nsOf(t, obj.metadata.namespace), obj, {
      keepStatus: true,
      version: versionOf(obj.apiVersion ?? ''),
      bypassSchema: options.bypassSchema === true,
    });
  }

  get(ref: ObjectRefLike): KubeObject | undefined {
    const t = this.typeOf(ref.apiVersion, ref.kind);
    return this.store.tryGet(t, this.nsOf(t, ref.namespace), ref.name);
  }

  list(apiVersion: string, kind: string, namespace?: string): KubeObject[] {
    return this.store.list(this.typeOf(apiVersion, kind), namespace) ?? [];
  }

  /** Replaces an object, status included; a stale metadata.resourceVersion throws 409 Conflict. */
  update(input: ObjectInput): KubeObject {
    const obj = input as KubeObject;
    const t = this.typeOf(obj.apiVersion ?? '', obj.kind ?? '');
    return this.store.update(t, this.nsOf(t, obj.metadata.namespace), obj.metadata.name, obj, {
      keepStatus: true,
      version: versionOf(obj.apiVersion ?? ''),
    });
  }

  delete(ref: ObjectRefLike): KubeObject {
    const t = this.typeOf(ref.apiVersion, ref.kind);
    return this.store.delete(t, this.nsOf(t, ref.namespace), ref.name);
  }

  /** The current global resourceVersion. */
  resourceVersion(): string {
    return String(this.store.currentRv());
  }

  openWatches(): number {
    return this.watches.openCount();
  }

  /**
   * Closes every open watch stream (clients see the stream end and must re-watch); with `abrupt`
   * the connections are reset instead of ended cleanly.
   */
  dropWatches(options: { abrupt?: boolean } = {}): void {
    this.watches.dropAll(options.abrupt ?? false);
  }

  /** While on, watch streams stay open but send nothing; the events they miss are lost to them. */
  hangWatches(on: boolean): void {
    this.watches.setHang(on);
  }

  /** The next `n` requests matching `filter` get a Status with this HTTP code. */
  failNextRequests(n: number, status: number, filter?: RequestFilter): void {
    this.faults.failNext(n, status, filter);
  }

  /** Forgets the change history: older resourceVersions and continue tokens get 410 Gone. */
  compactHistory(): void {
    this.store.compact();
  }

  setSubjectAccessReviewAnswer(fn: SubjectAccessReviewAnswer): void {
    this.sarAnswer = fn;
  }

  /** SubjectAccessReviews are answered by RBAC over the stored roles and bindings, as kube-apiserver does. */
  useRbacAuthorization(): void {
    const authorizer = this.rbacAuthorizer();
    this.sarAnswer = (spec, namespace) => {
      const access = accessOfReview(spec, namespace);
      if ('invalid' in access)
        throw new ApiError(422, 'Invalid', `SubjectAccessReview.authorization.k8s.io "" is invalid: ${access.field}: Invalid value: ${access.invalid}`);
      const d = authorizer.authorize(access.user, access.request);
      return d.reason === '' ? { allowed: d.allowed } : { allowed: d.allowed, reason: d.reason };
    };
  }

  /**
   * For the HTTP layer: the 403 message for a resource request by one of `users` that RBAC does not
   * allow, in kube-apiserver's words; undefined when allowed or the token is not one of `users`.
   */
  requestAuthorizer(users: Record<string, AccessUser>): (authorization: string | undefined, info: RequestInfo) => string | undefined {
    const authorizer = this.rbacAuthorizer();
    return (authorization, info) => {
      const token = authorization?.startsWith('Bearer ') === true ? authorization.slice('Bearer '.length) : undefined;
      const user = token === undefined ? undefined : users[token];
      if (user === undefined || info.verb === '') return undefined;
      const request = {
        kind: 'resource' as const,
        namespace: info.namespace,
        verb: info.verb,
        group: info.group,
        resource: info.plural,
        subresource: info.subresource,
        name: info.name,
      };
      if (authorizer.authorize(user, request).allowed) return undefined;
      const what = info.group === '' ? info.plural : `${info.plural}.${info.group}`;
      const target = info.name === '' ? what : `${what} "${info.name}"`;
      const resource = info.subresource === '' ? info.plural : `${info.plural}/${info.subresource}`;
      const scope = info.namespace === '' ? 'at the cluster scope' : `in the namespace "${info.namespace}"`;
      return `${target} is forbidden: User "${user.name}" cannot ${info.verb} resource "${resource}" in API group "${info.group}" ${scope}`;
    };
  }

  /** For the HTTP layer: escalation prevention on writes of roles and bindings by one of `users`. */
  escalationChecker(users: Record<string, AccessUser>): (authorization: string | undefined, info: RequestInfo, body: string) => string | undefined {
    const authorizer = this.rbacAuthorizer();
    const type = (plural: string) => this.resources.lookup('rbac.authorization.k8s.io', 'v1', plural)!;
    const rolesOf = (kind: string, name: string, namespace: string): readonly KubeObject[] => {
      const all = kind === 'ClusterRole' ? this.store.scan(type('clusterroles'), undefined) : this.store.scan(type('roles'), namespace);
      return (all ?? []).filter((r) => r.metadata.name === name);
    };
    return (authorization, info, body) => {
      const token = authorization?.startsWith('Bearer ') === true ? authorization.slice('Bearer '.length) : undefined;
      const user = token === undefined ? undefined : users[token];
      if (user === undefined || info.group !== 'rbac.authorization.k8s.io' || !['create', 'update', 'patch'].includes(info.verb)) return undefined;
      let obj: unknown;
      try {
        obj = JSON.parse(body);
      } catch {
        return undefined;
      }
      return isRecord(obj) ? escalationDenied(authorizer, rolesOf, user, { plural: info.plural, namespace: info.namespace, name: info.name }, obj) : undefined;
    };
  }

  private rbacAuthorizer(): RbacAuthorizer {
    const type = (plural: string) => this.resources.lookup('rbac.authorization.k8s.io', 'v1', plural)!;
    return new RbacAuthorizer({
      clusterRoles: () => this.store.scan(type('clusterroles'), undefined) ?? [],
      clusterRoleBindings: () => this.store.scan(type('clusterrolebindings'), undefined) ?? [],
      roles: (ns) => this.store.scan(type('roles'), ns) ?? [],
      roleBindings: (ns) => this.store.scan(type('rolebindings'), ns) ?? [],
    });
  }

  /** For the HTTP layer, which reads the answer at request time. */
  currentSubjectAccessReviewAnswer(): SubjectAccessReviewAnswer {
    return this.sarAnswer;
  }
}

export async function startTestApiServer(options: TestApiServerOptions = {}): Promise<TestApiServer> {
  const now = options.now ?? (() => new Date());
  const resources = new ResourceRegistry();
  const store = new ObjectStore(resources, { historyLimit: options.historyLimit ?? 10000, now });
  const watches = new WatchHub(store, { bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000 });
  const faults = new FaultPlan();
  const nsType = resources.lookup('', 'v1', 'namespaces')!;
  for (const name of ['default', 'kube-system', ...(options.namespaces ?? [])]) {
    store.create(nsType, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  const self: {
    api?: TestApiServer;
    authorize?: (authorization: string | undefined, info: RequestInfo) => string | undefined;
    escalation?: (authorization: string | undefined, info: RequestInfo, body: string) => string | undefined;
  } = {};
  const server = createServer(
    createHandler({
      resources,
      store,
      watches,
      faults,
      now,
      token: options.requireToken === true ? (options.token ?? 'test-token') : undefined,
      sarAnswer: () => self.api?.currentSubjectAccessReviewAnswer() ?? (() => ({ allowed: false })),
      ...(options.authorization === 'rbac' && options.users !== undefined
        ? {
            authorizeRequest: (authorization: string | undefined, info: RequestInfo) => self.authorize?.(authorization, info),
            checkEscalation: (authorization: string | undefined, info: RequestInfo, body: string) => self.escalation?.(authorization, info, body),
          }
        : {}),
      hostPort: () => self.api?.url.replace(/^http:\/\//, '') ?? '127.0.0.1',
    }),
  );
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const api = new TestApiServer(server, resources, store, watches, faults, options.token ?? 'test-token');
  self.api = api;
  if (options.authorization === 'rbac') api.useRbacAuthorization();
  if (options.authorization === 'rbac' && options.users !== undefined) {
    self.authorize = api.requestAuthorizer(options.users);
    self.escalation = api.escalationChecker(options.users);
  }
  return api;
}
