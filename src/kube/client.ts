/**
 * A small Kubernetes API client. Configuration and authentication (client certificates, tokens,
 * exec plugins, OIDC) come from @kubernetes/client-node's KubeConfig; requests and watch streams
 * go over node:http(s) with one keep-alive agent, so a hung watch can be cut by our own watchdog
 * and errors keep the API's Status reason.
 */
import { existsSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
// Type only: client-node takes seconds to import, so it is loaded when a client first needs it
// and commands that never talk to Kubernetes do not pay for it.
import type { KubeConfig } from '@kubernetes/client-node';
import { RateLimiter } from '../rate-limiter.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { KubeApiError } from './errors.ts';
import { redactUrl } from '../redact.ts';

/** Environment variables the client may use; main passes them, nothing here reads process.env. */
export interface KubeEnv {
  KUBECONFIG?: string | undefined;
  HOME?: string | undefined;
  KUBERNETES_SERVICE_HOST?: string | undefined;
  KUBERNETES_SERVICE_PORT?: string | undefined;
}

export interface KubeConfigSource {
  /** `--kubeconfig`; '' to use $KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
  kubeconfig: string;
  env: KubeEnv;
  /** `--kube-context`; '' keeps the file's current context. */
  context?: string;
  /** Root of the service-account files, for tests. */
  serviceAccountDir?: string;
  /** `--server`: the API server URL, replacing the one of the chosen cluster (alone, it is enough to connect). */
  server?: string;
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export type KubeConfigLocation =
  { kind: 'files'; files: string[]; origin: string } | { kind: 'in-cluster'; serviceAccountDir: string } | { kind: 'server-only' };

/** Where the configuration is, found the way kubectl and external-dns look; throws ConfigError naming the flag. */
export function locateKubeConfig(source: KubeConfigSource): KubeConfigLocation {
  const envFiles = (source.env.KUBECONFIG ?? '').split(':').filter((f) => f !== '');
  const home = source.env.HOME ?? '';
  const saDir = source.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  if ((source.server ?? '') !== '' && !/^https?:\/\/[^/]/.test(source.server ?? ''))
    throw new ConfigError(`--server ${JSON.stringify(source.server)} is not a URL such as https://host:6443`, '--server');
  if (source.kubeconfig !== '') {
    if (!existsSync(source.kubeconfig)) throw new ConfigError(`kubeconfig ${source.kubeconfig} does not exist`, '--kubeconfig');
    return { kind: 'files', files: [source.kubeconfig], origin: source.kubeconfig };
  }
  if (envFiles.length > 0) return { kind: 'files', files: envFiles, origin: `$KUBECONFIG (${envFiles.join(':')})` };
  if (home !== '' && existsSync(join(home, '.kube', 'config')))
    return { kind: 'files', files: [join(home, '.kube', 'config')], origin: join(home, '.kube', 'config') };
  if ((source.env.KUBERNETES_SERVICE_HOST ?? '') !== '' && existsSync(join(saDir, 'token'))) return { kind: 'in-cluster', serviceAccountDir: saDir };
  // As client-go's BuildConfigFromFlags: a server URL without any configuration connects without credentials.
  if ((source.server ?? '') !== '') return { kind: 'server-only' };
  throw new ConfigError(
    'no Kubernetes configuration: set --kubeconfig or $KUBECONFIG, create ~/.kube/config, set --server, or run in a cluster',
    '--kubeconfig',
  );
}

/** Loads the located configuration with client-node (imported on first use). */
export async function loadKubeConfig(source: KubeConfigSource, location: KubeConfigLocation = locateKubeConfig(source)): Promise<KubeConfig> {
  const { KubeConfig: KubeConfigClass } = await import('./kubeconfig-module.ts');
  const kc = new KubeConfigClass();
  let origin = 'in-cluster service account';
  if (location.kind === 'files') {
    origin = location.origin;
    try {
      kc.loadFromFile(location.files[0] ?? '');
      for (const extra of location.files.slice(1)) {
        const more = new KubeConfigClass();
        more.loadFromFile(extra);
        kc.mergeConfig(more, true);
      }
    } catch (err) {
      throw new ConfigError(`cannot load kubeconfig ${location.files.join(':')}: ${errorMessage(err)}`, '--kubeconfig');
    }
  } else if (location.kind === 'in-cluster') {
    loadInCluster(kc, source.env, location.serviceAccountDir);
  } else {
    origin = '--server';
    kc.loadFromClusterAndUser({ name: 'server', server: source.server ?? '', skipTLSVerify: false }, { name: 'anonymous' });
  }
  if (source.context !== undefined && source.context !== '') {
    if (kc.getContextObject(source.context) === null) throw new ConfigError(`kubeconfig has no context ${JSON.stringify(source.context)}`, '--kube-context');
    kc.setCurrentContext(source.context);
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new ConfigError(`kubeconfig ${origin} has no current cluster`, '--kubeconfig');
  if ((source.server ?? '') !== '' && cluster.server !== source.server) overrideServer(kc, cluster.name, source.server ?? '');
  return kc;
}

/** `--server` replaces the URL of the chosen cluster and keeps its credentials and CA, as client-go's override does. */
function overrideServer(kc: KubeConfig, clusterName: string, server: string): void {
  kc.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === clusterName ? { ...c, server } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
}

function loadInCluster(kc: KubeConfig, env: KubeEnv, saDir: string): void {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  const server = host.includes(':') ? `https://[${host}]:${port}` : `https://${host}:${port}`;
  kc.loadFromClusterAndUser(
    { name: 'inCluster', server, caFile: join(saDir, 'ca.crt'), skipTLSVerify: false },
    // A token file is re-read on every request, so projected tokens rotate without a restart.
    { name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: join(saDir, 'token') } } },
  );
}

export interface RequestSpec {
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  body?: unknown;
  /** Defaults to application/json when a body is given. */
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface WatchEvent {
  type: string;
  object: Record<string, unknown>;
}

export interface KubeClientOptions {
  /** A loaded configuration, or a loader run on the first request. */
  config: KubeConfig | (() => Promise<KubeConfig>);
  logger: Logger;
  /** Timeout of ordinary requests; watches have none (the reflector's watchdog covers them). */
  requestTimeoutMs?: number;
  /**
   * Client-side rate limit (`--kube-api-qps`, `--kube-api-burst`), a token bucket as client-go's:
   * every request, watches included, waits for a token. Absent: no limit.
   */
  rateLimit?: { qps: number; burst: number };
}

export class KubeClient {
  private readonly loader: () => Promise<KubeConfig>;
  private loaded: Promise<{ kc: KubeConfig; server: URL }> | undefined;
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private agent: HttpAgent | undefined;
  private readonly limiter: RateLimiter | undefined;

  constructor(opts: KubeClientOptions) {
    const config = opts.config;
    this.loader = typeof config === 'function' ? config : () => Promise.resolve(config);
    this.log = opts.logger;
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.limiter = opts.rateLimit === undefined ? undefined : new RateLimiter({ ratePerSecond: opts.rateLimit.qps, burst: opts.rateLimit.burst });
  }

  /**
   * Finds the configuration now (a missing one is a ConfigError at start-up); loads it on first
   * use. `requestTimeoutMs` is `--request-timeout` (0: none).
   */
  static fromConfig(source: KubeConfigSource, logger: Logger, requestTimeoutMs?: number, rateLimit?: KubeClientOptions['rateLimit']): KubeClient {
    const location = locateKubeConfig(source);
    return new KubeClient({
      config: () => loadKubeConfig(source, location),
      logger,
      ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
      ...(rateLimit === undefined ? {} : { rateLimit }),
    });
  }

  private config(): Promise<{ kc: KubeConfig; server: URL }> {
    const loading = (this.loaded ??= this.loader().then((kc) => {
      const cluster = kc.getCurrentCluster();
      if (cluster === null) throw new ConfigError('kubeconfig has no current cluster', '--kubeconfig');
      this.log.debug({ server: redactUrl(cluster.server) }, 'kubernetes configuration loaded');
      return { kc, server: new URL(cluster.server) };
    }));
    // A failed load is not kept: the next request loads again (a kubeconfig being rewritten, a
    // token file not mounted yet), instead of every later request repeating the first error.
    loading.catch(() => {
      if (this.loaded === loading) this.loaded = undefined;
    });
    return loading;
  }

  /** One request; the parsed JSON answer, or KubeApiError with the Status reason. */
  async request<T>(method: string, path: string, spec: RequestSpec = {}): Promise<T> {
    const res = await this.open(method, path, spec, spec.timeoutMs ?? this.timeoutMs);
    const text = await readBody(res);
    if ((res.statusCode ?? 0) >= 300) throw apiError(method, path, res.statusCode ?? 0, text);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      throw new KubeApiError(`${method} ${path}: answer is not JSON`, 502, 'BadResponse', { cause: err });
    }
  }

  /**
   * A watch stream: calls `onEvent` for every event line until the server ends the stream (resolves)
   * or the connection fails (rejects). Abort `signal` to cut it; that resolves too.
   */
  async watch(path: string, query: RequestSpec['query'], onEvent: (event: WatchEvent) => void, signal: AbortSignal): Promise<void> {
    const res = await this.open('GET', path, { query: { ...query, watch: true }, signal }, 0);
    if ((res.statusCode ?? 0) >= 300) throw apiError('WATCH', path, res.statusCode ?? 0, await readBody(res));
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let nl = buffered.indexOf('\n');
        while (nl >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          nl = buffered.indexOf('\n');
          if (line === '') continue;
          let event: WatchEvent;
          try {
            event = JSON.parse(line) as WatchEvent;
          } catch {
            this.log.warn({ path, line: line.slice(0, 200) }, 'watch sent a line that is not JSON; ignored');
            continue;
          }
          onEvent(event);
        }
      });
      res.on('end', () => resolve());
      res.on('error', (err) => (signal.aborted ? resolve() : reject(new KubeApiError(`watch ${path}: ${err.message}`, 0, 'StreamError', { cause: err }))));
      res.on('close', () => resolve());
    });
  }

  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }

  private async open(method: string, path: string, spec: RequestSpec, timeoutMs: number): Promise<IncomingMessage> {
    const { kc, server } = await this.config();
    await this.limiter?.take();
    const opts: RequestOptions & { agent?: unknown } = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(opts as never);
    } catch (err) {
      // client-node refuses to build an agent for plain-HTTP servers (kubectl proxy, test servers)
      // unless TLS checks are off; its auth headers are set before that check, and we bring our own agent.
      if (server.protocol !== 'http:') throw err;
    }
    const url = new URL(server.toString().replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: OutgoingHttpHeaders = { ...(opts.headers as OutgoingHttpHeaders), accept: 'application/json' };
    let payload: string | undefined;
    if (spec.body !== undefined) {
      payload = typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
      headers['content-type'] = spec.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    if (opts.auth !== undefined && opts.auth !== null) headers['authorization'] = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    const secure = url.protocol === 'https:';
    const agent = this.agentFor(secure, opts);
    return new Promise<IncomingMessage>((resolve, reject) => {
      const fail = (err: Error): void => reject(new KubeApiError(`${method} ${path}: ${err.message}`, 0, 'Unreachable', { cause: err }));
      const req = (secure ? httpsRequest : httpRequest)(url, { method, headers, agent }, (res) => {
        // An abort can land before the caller attaches its own listeners; it must not be uncaught.
        res.on('error', () => undefined);
        resolve(res);
      });
      req.on('error', fail);
      // Destroying without an error ends a watch quietly ('close'); Node's own signal option would
      // raise an AbortError on streams that may have no listener yet.
      const signal = spec.signal;
      if (signal !== undefined) {
        const abort = (): void => {
          req.destroy();
          fail(new Error('aborted'));
        };
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort, { once: true });
        req.on('close', () => signal.removeEventListener('abort', abort));
      }
      if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.end(payload);
    });
  }

  private agentFor(
    secure: boolean,
    tls: RequestOptions & { ca?: unknown; cert?: unknown; key?: unknown; rejectUnauthorized?: boolean; servername?: string },
  ): HttpAgent {
    if (this.agent !== undefined) return this.agent;
    // TLS material is fixed per kubeconfig; tokens are applied per request as headers.
    const base = { keepAlive: true, maxSockets: 32 };
    this.agent = secure
      ? new HttpsAgent({
          ...base,
          ...(tls.ca === undefined ? {} : { ca: tls.ca as Buffer }),
          ...(tls.cert === undefined ? {} : { cert: tls.cert as Buffer }),
          ...(tls.key === undefined ? {} : { key: tls.key as Buffer }),
          ...(tls.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: tls.rejectUnauthorized }),
          ...(tls.servername === undefined ? {} : { servername: tls.servername }),
        })
      : new HttpAgent(base);
    return this.agent;
  }
}

async function readBody(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk as string;
  return text;
}

function apiError(method: string, path: string, status: number, body: string): KubeApiError {
  let reason = '';
  let message = body.slice(0, 300);
  try {
    const parsed = JSON.parse(body) as { reason?: string; message?: string };
    reason = parsed.reason ?? '';
    message = parsed.message ?? message;
  } catch {
    // not a Status object; keep the raw text
  }
  return new KubeApiError(`${method} ${path}: ${status} ${reason}${message === '' ? '' : `: ${message}`}`, status, reason);
}
