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
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { KubeApiError } from './errors.ts';

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
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Finds the configuration the way kubectl and external-dns do; throws ConfigError naming the flag. */
export function loadKubeConfig(source: KubeConfigSource): { config: KubeConfig; origin: string; inCluster: boolean } {
  const kc = new KubeConfig();
  const fromFile = (files: string[], flag: string): void => {
    try {
      kc.loadFromFile(files[0] ?? '');
      for (const extra of files.slice(1)) {
        const more = new KubeConfig();
        more.loadFromFile(extra);
        kc.mergeConfig(more, true);
      }
    } catch (err) {
      throw new ConfigError(`cannot load kubeconfig ${files.join(':')}: ${errorMessage(err)}`, flag);
    }
  };
  let origin: string;
  let inCluster = false;
  const envFiles = (source.env.KUBECONFIG ?? '').split(':').filter((f) => f !== '');
  const home = source.env.HOME ?? '';
  const saDir = source.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  if (source.kubeconfig !== '') {
    fromFile([source.kubeconfig], '--kubeconfig');
    origin = source.kubeconfig;
  } else if (envFiles.length > 0) {
    fromFile(envFiles, '--kubeconfig');
    origin = `$KUBECONFIG (${envFiles.join(':')})`;
  } else if (home !== '' && existsSync(join(home, '.kube', 'config'))) {
    fromFile([join(home, '.kube', 'config')], '--kubeconfig');
    origin = join(home, '.kube', 'config');
  } else if ((source.env.KUBERNETES_SERVICE_HOST ?? '') !== '' && existsSync(join(saDir, 'token'))) {
    loadInCluster(kc, source.env, saDir);
    origin = 'in-cluster service account';
    inCluster = true;
  } else {
    throw new ConfigError('no Kubernetes configuration: set --kubeconfig or $KUBECONFIG, create ~/.kube/config, or run in a cluster', '--kubeconfig');
  }
  if (source.context !== undefined && source.context !== '') {
    if (kc.getContextObject(source.context) === null) throw new ConfigError(`kubeconfig has no context ${JSON.stringify(source.context)}`, '--kube-context');
    kc.setCurrentContext(source.context);
  }
  if (kc.getCurrentCluster() === null) throw new ConfigError(`kubeconfig ${origin} has no current cluster`, '--kubeconfig');
  return { config: kc, origin, inCluster };
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
  config: KubeConfig;
  logger: Logger;
  /** Timeout of ordinary requests; watches have none (the reflector's watchdog covers them). */
  requestTimeoutMs?: number;
}

export class KubeClient {
  private readonly kc: KubeConfig;
  private readonly server: URL;
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private agent: HttpAgent | undefined;

  constructor(opts: KubeClientOptions) {
    this.kc = opts.config;
    const cluster = this.kc.getCurrentCluster();
    if (cluster === null) throw new ConfigError('kubeconfig has no current cluster', '--kubeconfig');
    this.server = new URL(cluster.server);
    this.log = opts.logger;
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
  }

  static fromConfig(source: KubeConfigSource, logger: Logger): KubeClient {
    const { config, origin } = loadKubeConfig(source);
    logger.debug({ origin, server: config.getCurrentCluster()?.server }, 'kubernetes configuration loaded');
    return new KubeClient({ config, logger });
  }

  get serverUrl(): string {
    return this.server.toString();
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
    const opts: RequestOptions & { agent?: unknown } = { headers: {} };
    await this.kc.applyToHTTPSOptions(opts as never);
    const url = new URL(this.server.toString().replace(/\/$/, '') + path);
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

  private agentFor(secure: boolean, tls: RequestOptions & { ca?: unknown; cert?: unknown; key?: unknown; rejectUnauthorized?: boolean; servername?: string }): HttpAgent {
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
