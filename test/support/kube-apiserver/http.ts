/**
 * The HTTP front of the test API server: non-resource paths (version, discovery, OpenAPI, health),
 * then resource verbs mapped onto the store, with injected failures checked first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest, isRecord, notFound, statusObject } from './types.ts';
import type { KubeObject } from './types.ts';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, openApiV3GroupVersion, openApiV3Root, SERVER_VERSION } from './discovery.ts';
import type { FaultPlan, RequestInfo } from './faults.ts';
import { applyPatch, parsePatchBody, patchTypeOf } from './patch.ts';
import { apiVersionOf } from './resources.ts';
import type { ResourceRegistry, ResourceType } from './resources.ts';
import { parseResourcePath } from './routes.ts';
import type { ResourcePath } from './routes.ts';
import { parseFieldSelector, parseLabelSelector } from './selectors.ts';
import type { ObjectStore } from './store.ts';
import { toTable, wantsTable } from './table.ts';
import { parseFieldValidation } from './validation.ts';
import type { WatchHub } from './watch.ts';

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/**
 * Decides a SubjectAccessReview from its spec (user, groups, resourceAttributes, …); `namespace` is
 * the path's namespace for a LocalSubjectAccessReview. May throw an ApiError (422 for a bad spec).
 */
export type SubjectAccessReviewAnswer = (spec: Record<string, unknown>, namespace?: string) => SubjectAccessReviewStatus;

export interface ApiContext {
  resources: ResourceRegistry;
  store: ObjectStore;
  watches: WatchHub;
  faults: FaultPlan;
  now: () => Date;
  /** When set, requests must carry this bearer token. */
  token: string | undefined;
  sarAnswer: () => SubjectAccessReviewAnswer;
  hostPort: () => string;
  /**
   * Whether the caller with this Authorization header may make this resource request: undefined
   * allows it; a string is the message of the 403 Forbidden answer.
   */
  authorizeRequest?: (authorization: string | undefined, info: RequestInfo) => string | undefined;
  /** RBAC escalation prevention on role and binding writes: the 403 message, or undefined. */
  checkEscalation?: (authorization: string | undefined, info: RequestInfo, body: string) => string | undefined;
}

const MAX_BODY = 16 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new ApiError(413, 'BadRequest', 'request entity too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, warnings: readonly string[] = []): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | string[]> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  // kube-apiserver's warning format (RFC 7234 style): code 299, agent "-", quoted text.
  if (warnings.length > 0) headers.warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(status, headers);
  res.end(text);
}

function parseObject(body: string): KubeObject {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (err) {
    throw badRequest(`the object provided is unrecognized: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isRecord(v)) throw badRequest('the object provided is not an object');
  return { ...v, metadata: isRecord(v.metadata) ? (v.metadata as KubeObject['metadata']) : ({} as KubeObject['metadata']) };
}

function nonResource(ctx: ApiContext, path: string): unknown {
  const p = path.replace(/\/+$/, '') || '/';
  if (p === '/version') return SERVER_VERSION;
  if (p === '/healthz' || p === '/livez' || p === '/readyz') return 'ok';
  if (p === '/api') return apiVersions(ctx.hostPort());
  if (p === '/apis') return apiGroupList(ctx.resources);
  if (p === '/openapi/v3') return openApiV3Root(ctx.resources);
  const segs = p.split('/').filter((s) => s !== '');
  if (segs[0] === 'api' && segs.length === 2) return apiResourceList(ctx.resources, '', segs[1]!);
  if (segs[0] === 'apis' && segs.length === 2) return apiGroup(ctx.resources, segs[1]!);
  if (segs[0] === 'apis' && segs.length === 3) return apiResourceList(ctx.resources, segs[1]!, segs[2]!);
  if (segs[0] === 'openapi' && segs[1] === 'v3') {
    if (segs[2] === 'api' && segs.length === 4) return openApiV3GroupVersion(ctx.resources, '', segs[3]!);
    if (segs[2] === 'apis' && segs.length === 5) return openApiV3GroupVersion(ctx.resources, segs[3]!, segs[4]!);
  }
  return undefined;
}

function verbOf(method: string, rp: ResourcePath, watch: boolean): string {
  switch (method) {
    case 'GET':
      if (watch) return 'watch';
      return rp.name === '' ? 'list' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return rp.name === '' ? 'deletecollection' : 'delete';
    default:
      return '';
  }
}

function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: lastKey })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (isRecord(v) && typeof v.rv === 'number' && typeof v.start === 'string') return { rv: v.rv, start: v.start };
  } catch {
    // reported below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

export function createHandler(ctx: ApiContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // A client that went away while we answered is not the server's failure.
    res.on('error', () => res.destroy());
    handle(ctx, req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof ApiError) sendJson(res, err.status, err.toStatus());
      else sendJson(res, 500, statusObject(500, 'InternalError', `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`));
    });
  };
}

async function handle(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const method = req.method ?? 'GET';
  const rp = parseResourcePath(url.pathname);
  const q = url.searchParams;
  const watch = rp !== undefined && (rp.legacyWatch || q.get('watch') === 'true' || q.get('watch') === '1');
  const info: RequestInfo = {
    method,
    path: url.pathname,
    verb: rp === undefined ? '' : verbOf(method, rp, watch),
    group: rp?.group ?? '',
    plural: rp?.plural ?? '',
    namespace: rp?.namespace ?? '',
    name: rp?.name ?? '',
    subresource: rp?.subresource ?? '',
  };
  if (ctx.token !== undefined && req.headers.authorization !== `Bearer ${ctx.token}`) {
    req.resume();
    sendJson(res, 401, statusObject(401, 'Unauthorized', 'Unauthorized'));
    return;
  }
  const forbidden = rp === undefined ? undefined : ctx.authorizeRequest?.(req.headers.authorization, info);
  if (forbidden !== undefined) {
    req.resume();
    sendJson(res, 403, statusObject(403, 'Forbidden', forbidden, { ...(info.name === '' ? {} : { name: info.name }), group: info.group, kind: info.plural }));
    return;
  }
  const injected = ctx.faults.take(info);
  if (injected !== undefined) {
    req.resume();
    sendJson(res, injected.status, injected.body);
    return;
  }
  const body = method === 'GET' || method === 'HEAD' ? '' : await readBody(req);
  const escalation = body === '' || rp === undefined ? undefined : ctx.checkEscalation?.(req.headers.authorization, info, body);
  if (escalation !== undefined) {
    sendJson(res, 403, statusObject(403, 'Forbidden', escalation, { ...(info.name === '' ? {} : { name: info.name }), group: info.group, kind: info.plural }));
    return;
  }
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
  // Protobuf and CBOR are not spoken here (kubectl's imperative generators such as `create configmap`
  // send protobuf): a clear 415 beats a JSON parse error.
  if ((method === 'POST' || method === 'PUT') && body !== '' && contentType !== '' && contentType !== 'application/json' && contentType !== '*/*') {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json (this test API server does not decode ${contentType})`,
    );
  }
  if (rp === undefined) {
    const doc = method === 'GET' ? nonResource(ctx, url.pathname) : undefined;
    if (doc === undefined) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (typeof doc === 'string') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(doc);
    } else {
      sendJson(res, 200, doc);
    }
    return;
  }
  const t = ctx.resources.lookup(rp.group, rp.version, rp.plural);
  if (t === undefined || (rp.namespace !== undefined && !t.namespaced)) {
    throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  }
  if (rp.subresource !== '' && !(rp.subresource === 'status' && t.hasStatus)) {
    throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  }
  await resourceRequest(ctx, req, res, { rp, t, q, method, verb: info.verb, body });
}

interface ResourceCall {
  rp: ResourcePath;
  t: ResourceType;
  q: URLSearchParams;
  method: string;
  verb: string;
  body: string;
}

function notAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

async function resourceRequest(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, call: ResourceCall): Promise<void> {
  const { rp, t, q, verb } = call;
  const ns = rp.namespace ?? '';
  // Writing on a dry run would be worse than refusing it.
  if (q.get('dryRun') !== null && verb !== 'list' && verb !== 'get' && verb !== 'watch') {
    throw badRequest('dryRun is not supported by the test API server');
  }
  const apiVersion = apiVersionOf(t.group, rp.version);
  const render = (obj: KubeObject): KubeObject => ({ ...obj, apiVersion });
  if (t.createOnly) {
    if (verb !== 'create') throw notAllowed();
    const obj = parseObject(call.body);
    const spec = isRecord(obj.spec) ? obj.spec : {};
    sendJson(res, 201, { ...obj, apiVersion, kind: t.kind, status: ctx.sarAnswer()(spec, rp.namespace) });
    return;
  }
  const labels = parseLabelSelector(q.get('labelSelector'));
  // A watch on an object's own path (legacy `/watch/…/name` or `…/name?watch=1`) watches that object.
  const nameField = verb === 'watch' && rp.name !== '' ? `metadata.name=${rp.name}` : null;
  const fields = parseFieldSelector([q.get('fieldSelector'), nameField].filter((s) => s !== null && s !== '').join(',') || null);
  const status = rp.subresource === 'status' ? 'status' : undefined;
  const warnings: string[] = [];
  const writeOpts = { subresource: status, version: rp.version, fieldValidation: parseFieldValidation(q.get('fieldValidation')), warnings } as const;
  switch (verb) {
    case 'watch': {
      const table = wantsTable(req.headers.accept);
      const includeObject = q.get('includeObject');
      const timeout = q.get('timeoutSeconds');
      ctx.watches.serve(
        {
          type: t,
          namespace: rp.namespace,
          labels,
          fields,
          resourceVersion: q.get('resourceVersion') ?? undefined,
          bookmarks: q.get('allowWatchBookmarks') === 'true',
          sendInitialEvents: q.get('sendInitialEvents') === 'true',
          timeoutSeconds: timeout === null ? undefined : Number(timeout),
          render: (obj) => (table ? toTable([render(obj)], { resourceVersion: obj.metadata.resourceVersion }, includeObject, ctx.now()) : render(obj)),
        },
        res,
      );
      return;
    }
    case 'list':
      return listRequest(ctx, req, res, call, labels, fields, render);
    case 'get':
      sendJson(res, 200, render(ctx.store.get(t, ns, rp.name)));
      return;
    case 'create': {
      if (rp.name !== '' || status !== undefined) throw notAllowed();
      sendJson(res, 201, render(ctx.store.create(t, ns, parseObject(call.body), writeOpts)), warnings);
      return;
    }
    case 'update':
      sendJson(res, 200, render(ctx.store.update(t, ns, rp.name, parseObject(call.body), writeOpts)), warnings);
      return;
    case 'patch': {
      const type = patchTypeOf(req.headers['content-type']);
      const patch = parsePatchBody(type, call.body);
      const existing = ctx.store.tryGet(t, ns, rp.name);
      if (existing === undefined) {
        if (type !== 'apply' || status !== undefined || !isRecord(patch)) throw notFound(t.plural, t.group, rp.name);
        const obj = { ...patch, metadata: { ...(isRecord(patch.metadata) ? patch.metadata : {}), name: rp.name } } as KubeObject;
        sendJson(res, 201, render(ctx.store.create(t, ns, obj, writeOpts)), warnings);
        return;
      }
      const patched = applyPatch(type, existing, patch);
      if (!isRecord(patched) || !isRecord(patched.metadata)) throw badRequest('the patch does not produce an object');
      sendJson(res, 200, render(ctx.store.update(t, ns, rp.name, patched as KubeObject, writeOpts)), warnings);
      return;
    }
    case 'delete': {
      if (status !== undefined) throw notAllowed();
      const opts: Record<string, unknown> = call.body.trim() === '' ? {} : parseObject(call.body);
      const pre = isRecord(opts.preconditions) ? opts.preconditions : {};
      const preconditions = {
        uid: typeof pre.uid === 'string' ? pre.uid : undefined,
        resourceVersion: typeof pre.resourceVersion === 'string' ? pre.resourceVersion : undefined,
      };
      sendJson(res, 200, render(ctx.store.delete(t, ns, rp.name, preconditions)));
      return;
    }
    case 'deletecollection': {
      const items = (ctx.store.scan(t, rp.namespace) ?? []).filter((o) => labels(o) && fields(o));
      const deleted = items.map((o) => render(ctx.store.delete(t, o.metadata.namespace ?? '', o.metadata.name)));
      sendJson(res, 200, { kind: t.listKind, apiVersion, metadata: { resourceVersion: String(ctx.store.currentRv()) }, items: deleted });
      return;
    }
    default:
      throw notAllowed();
  }
}

function listRequest(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  call: ResourceCall,
  labels: (o: KubeObject) => boolean,
  fields: (o: KubeObject) => boolean,
  render: (o: KubeObject) => KubeObject,
): void {
  const { rp, t, q } = call;
  const cont = q.get('continue');
  const limit = Number(q.get('limit') ?? '0');
  let atRv: number | undefined;
  let start = '';
  if (cont !== null && cont !== '') {
    const c = decodeContinue(cont);
    atRv = c.rv;
    start = c.start;
  } else if (q.get('resourceVersionMatch') === 'Exact') {
    atRv = Number(q.get('resourceVersion'));
    if (!Number.isInteger(atRv) || atRv < 0) throw badRequest('resourceVersionMatch=Exact needs a resourceVersion');
  }
  const listRv = atRv ?? ctx.store.currentRv();
  const all = ctx.store.scan(t, rp.namespace, atRv);
  if (all === undefined) {
    throw new ApiError(
      410,
      'Expired',
      cont !== null
        ? 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'
        : `Timeout: Too large resource version or too old: ${String(atRv)}`,
    );
  }
  const key = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  const matching = all.filter((o) => key(o) > start && labels(o) && fields(o));
  const page = Number.isInteger(limit) && limit > 0 ? matching.slice(0, limit) : matching;
  const meta: Record<string, unknown> = { resourceVersion: String(listRv) };
  if (page.length < matching.length) {
    meta.continue = encodeContinue(listRv, key(page[page.length - 1]!));
    if (q.get('labelSelector') === null && q.get('fieldSelector') === null) meta.remainingItemCount = matching.length - page.length;
  }
  const items = page.map(render);
  if (wantsTable(req.headers.accept)) {
    sendJson(res, 200, toTable(items, meta, q.get('includeObject'), ctx.now()));
    return;
  }
  sendJson(res, 200, { kind: t.listKind, apiVersion: apiVersionOf(t.group, rp.version), metadata: meta, items });
}
