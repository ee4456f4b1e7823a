/**
 * The webhook provider: Hostwarden as the client of an external-dns webhook provider (any
 * program speaking protocol v1, including `hostwarden webhook-server`). Failures keep the
 * protocol's rule: 5xx, timeouts and connection errors are transient; anything else is permanent.
 */
import { sleep } from '../../backoff.ts';
import type { DomainFilter } from '../../endpoint/domain-filter.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { ConfigError, HostwardenError, ProviderError, errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { redactUrl, redactUrls } from '../../redact.ts';
import type { Provider } from '../provider.ts';
import type { Changes } from '../../plan/changes.ts';
import { MEDIA_TYPE, changesToWire, domainFilterFromJSON, endpointsFromWire, endpointsToWire, isWebhookMediaType } from './protocol.ts';
import { webhookMaxBodyBytes } from './flags.ts';
import type { ProviderConfig, ProviderDeps } from '../provider.ts';
import { HttpRequestMetrics } from '../../http/request-metrics.ts';
import { WebhookClientMetrics } from './metrics.ts';
import type { WebhookMethod } from './metrics.ts';

export const PROVIDER_NAME = 'webhook';
/** Largest response body read; a bigger one is refused rather than buffered without bound. */
export const DEFAULT_MAX_BODY_BYTES = 32 << 20;
/** Start-up negotiation: attempts after the first, for transient failures only (as external-dns). */
const NEGOTIATION_RETRIES = 5;

export interface WebhookProviderOptions {
  url: string;
  logger: Logger;
  /** The domain filter negotiated with the server (GET /). */
  filter: DomainFilter;
  readTimeoutMs: number;
  writeTimeoutMs: number;
  maxBodyBytes?: number;
  metrics?: { calls: WebhookClientMetrics; http: HttpRequestMetrics };
}

interface Exchange {
  status: number;
  contentType: string | null;
  vary: string | null;
  body: unknown;
}

export class WebhookProvider implements Provider {
  readonly name = PROVIDER_NAME;
  /** Without user info: that becomes `authorization` (as Go's client does), so no URL we log or fetch holds it. */
  private readonly base: URL;
  private readonly authorization: string | undefined;
  private readonly logger: Logger;
  private readonly filter: DomainFilter;
  private readonly readTimeoutMs: number;
  private readonly writeTimeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly metrics: WebhookProviderOptions['metrics'];

  constructor(opts: WebhookProviderOptions) {
    const base = baseURL(opts.url);
    this.authorization = basicAuth(base);
    base.username = '';
    base.password = '';
    this.base = base;
    this.logger = opts.logger;
    this.filter = opts.filter;
    this.readTimeoutMs = opts.readTimeoutMs;
    this.writeTimeoutMs = opts.writeTimeoutMs;
    this.maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.metrics = opts.metrics;
  }

  static async fromConfig(cfg: ProviderConfig, deps: ProviderDeps & { sleep?: (ms: number) => Promise<void> }): Promise<WebhookProvider> {
    const flags = cfg.flags;
    const url = flags.str('webhook-provider-url');
    try {
      baseURL(url);
    } catch {
      throw new ConfigError(`--webhook-provider-url ${JSON.stringify(redactUrl(url))} is not an http:// or https:// URL`, '--webhook-provider-url');
    }
    const readTimeoutMs = flags.num('webhook-provider-read-timeout');
    const writeTimeoutMs = flags.num('webhook-provider-write-timeout');
    if (readTimeoutMs <= 0) throw new ConfigError('--webhook-provider-read-timeout must be greater than 0', '--webhook-provider-read-timeout');
    if (writeTimeoutMs <= 0) throw new ConfigError('--webhook-provider-write-timeout must be greater than 0', '--webhook-provider-write-timeout');
    const metrics =
      deps.metrics === undefined ? {} : { metrics: { calls: new WebhookClientMetrics(deps.metrics), http: new HttpRequestMetrics(deps.metrics) } };
    const maxBodyBytes = flags.has('webhook-provider-max-body-size') ? webhookMaxBodyBytes(flags) : DEFAULT_MAX_BODY_BYTES;
    return WebhookProvider.negotiate(
      { url, logger: deps.logger, readTimeoutMs, writeTimeoutMs, maxBodyBytes, ...metrics },
      deps.sleep ?? ((ms: number) => sleep(ms)),
    );
  }

  /** GET / for the domain filter, retried with backoff while the server starts (transient errors only). */
  static async negotiate(opts: Omit<WebhookProviderOptions, 'filter'>, sleep: (ms: number) => Promise<void>): Promise<WebhookProvider> {
    const probe = new WebhookProvider({ ...opts, filter: domainFilterFromJSON({}) });
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await probe.exchange('GET', '', undefined, opts.readTimeoutMs);
        if (res.status < 200 || res.status >= 300) throw unexpected('GET /', res);
        if (!isWebhookMediaType(res.contentType)) {
          throw new ProviderError(
            PROVIDER_NAME,
            `GET ${redactUrl(probe.base)}: server answered Content-Type ${JSON.stringify(res.contentType)}, not ${MEDIA_TYPE}`,
            { code: 'PROVIDER_BAD_RESPONSE' },
          );
        }
        if (res.vary?.toLowerCase() !== 'content-type') opts.logger.debug({ vary: res.vary }, 'webhook server sent no "Vary: Content-Type"');
        const filter = wrap(() => domainFilterFromJSON(res.body), 'GET /');
        opts.logger.info(
          {
            url: redactUrl(probe.base),
            include: filter.include,
            exclude: filter.exclude,
            regexInclude: filter.regexInclude?.source,
            regexExclude: filter.regexExclude?.source,
          },
          'webhook provider negotiated',
        );
        return new WebhookProvider({ ...opts, filter });
      } catch (err) {
        const transient = err instanceof HostwardenError ? err.transient : true;
        if (!transient || attempt >= NEGOTIATION_RETRIES) throw err;
        opts.logger.warn({ err: errorMessage(err), attempt: attempt + 1 }, 'webhook provider not ready; retrying');
        await sleep(Math.min(500 * 1.5 ** attempt, 5000));
      }
    }
  }

  async records(): Promise<Endpoint[]> {
    return this.counted('records', async () => {
      const res = await this.exchange('GET', 'records', undefined, this.readTimeoutMs);
      if (res.status !== 200) throw unexpected('GET /records', res);
      const read = wrap(() => endpointsFromWire(res.body, 'GET /records'), 'GET /records');
      if (read.skipped.length > 0)
        this.logger.warn({ skipped: read.skipped.slice(0, 20), count: read.skipped.length }, 'webhook records of unsupported types ignored');
      return read.endpoints;
    });
  }

  async applyChanges(changes: Changes): Promise<void> {
    await this.counted('applychanges', async () => {
      const res = await this.exchange('POST', 'records', changesToWire(changes), this.writeTimeoutMs);
      if (res.status !== 204 && res.status !== 200) throw unexpected('POST /records', res);
    });
  }

  async adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return this.counted('adjustendpoints', async () => {
      const res = await this.exchange('POST', 'adjustendpoints', endpointsToWire(endpoints), this.writeTimeoutMs);
      if (res.status !== 200) throw unexpected('POST /adjustendpoints', res);
      return wrap(() => endpointsFromWire(res.body, 'POST /adjustendpoints'), 'POST /adjustendpoints').endpoints;
    });
  }

  /** One call of a protocol method, counted as external-dns counts it: every call, and every failure whatever its cause. */
  private async counted<T>(method: WebhookMethod, call: () => Promise<T>): Promise<T> {
    this.metrics?.calls.request(method);
    try {
      return await call();
    } catch (err) {
      this.metrics?.calls.error(method);
      throw err;
    }
  }

  domainFilter(): DomainFilter {
    return this.filter;
  }

  private async exchange(method: 'GET' | 'POST', path: string, payload: unknown, timeoutMs: number): Promise<Exchange> {
    const url = new URL(path, this.base);
    const where = `${method} ${url.pathname}`;
    const headers: Record<string, string> = { accept: MEDIA_TYPE };
    if (this.authorization !== undefined) headers['authorization'] = this.authorization;
    if (payload !== undefined) headers['content-type'] = MEDIA_TYPE;
    const signal = AbortSignal.timeout(timeoutMs);
    let res: Response;
    const started = performance.now();
    try {
      res = await fetch(url, { method, headers, signal, ...(payload === undefined ? {} : { body: JSON.stringify(payload) }) });
    } catch (err) {
      this.metrics?.http.observe(url, method, undefined, (performance.now() - started) / 1000);
      throw transportError(where, err, timeoutMs, signal);
    }
    // As external-dns's round tripper: the time to the response headers.
    this.metrics?.http.observe(url, method, res.status, (performance.now() - started) / 1000);
    let text: string;
    try {
      text = await readLimited(res, this.maxBodyBytes);
    } catch (err) {
      if (err instanceof ProviderError) throw new ProviderError(PROVIDER_NAME, `${where}: ${err.message}`, { code: err.code });
      throw transportError(where, err, timeoutMs, signal);
    }
    const out: Exchange = { status: res.status, contentType: res.headers.get('content-type'), vary: res.headers.get('vary'), body: undefined };
    if (res.status < 200 || res.status >= 300) return { ...out, body: text };
    if (text.trim() === '') return out;
    try {
      return { ...out, body: JSON.parse(text) as unknown };
    } catch {
      throw new ProviderError(PROVIDER_NAME, `${where}: response is not JSON: ${text.slice(0, 200)}`, { code: 'PROVIDER_BAD_RESPONSE' });
    }
  }
}

/** `Basic` credentials from the URL's user info, percent-decoded as Go's net/http does. */
function basicAuth(u: URL): string | undefined {
  if (u.username === '' && u.password === '') return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
}

function baseURL(url: string): URL {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
  if (!u.pathname.endsWith('/')) u.pathname = `${u.pathname}/`;
  return u;
}

/** Reads the body, refusing it once it passes `limit` bytes. */
async function readLimited(res: Response, limit: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '-1');
  if (declared > limit) {
    await res.body?.cancel();
    throw new ProviderError(PROVIDER_NAME, `response body of ${declared} bytes exceeds the ${limit}-byte limit`, { code: 'PROVIDER_BAD_RESPONSE' });
  }
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new ProviderError(PROVIDER_NAME, `response body exceeds the ${limit}-byte limit`, { code: 'PROVIDER_BAD_RESPONSE' });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function transportError(where: string, err: unknown, timeoutMs: number, signal: AbortSignal): ProviderError {
  if (signal.aborted) {
    return new ProviderError(PROVIDER_NAME, `${where}: no complete answer within ${timeoutMs} ms`, { transient: true, code: 'PROVIDER_TIMEOUT', cause: err });
  }
  const cause = (err as { cause?: unknown }).cause;
  const detail = redactUrls(cause instanceof Error ? cause.message : errorMessage(err));
  return new ProviderError(PROVIDER_NAME, `${where}: cannot reach the webhook provider: ${detail}`, {
    transient: true,
    code: 'PROVIDER_UNAVAILABLE',
    cause: err,
  });
}

function unexpected(where: string, res: Exchange): ProviderError {
  const detail = typeof res.body === 'string' && res.body.trim() !== '' ? `: ${res.body.trim().slice(0, 500)}` : '';
  return new ProviderError(PROVIDER_NAME, `${where}: HTTP ${res.status}${detail}`, {
    transient: res.status >= 500,
    code: res.status >= 500 ? 'PROVIDER_FAILED' : 'PROVIDER_REJECTED',
  });
}

/** Bad JSON shapes from the server are permanent provider errors, not endpoint errors of ours. */
function wrap<T>(fn: () => T, where: string): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    throw new ProviderError(PROVIDER_NAME, `${where}: ${errorMessage(err)}`, { code: 'PROVIDER_BAD_RESPONSE', cause: err });
  }
}
