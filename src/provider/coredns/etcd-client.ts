/**
 * A minimal etcd v3 client over the JSON gRPC gateway (`/v3/kv/...`, keys and values base64),
 * which etcd 3.4+ serves on its client port. Enough for the CoreDNS provider: prefix reads,
 * and transactions guarded by revisions so concurrent writers are detected, not overwritten.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { HostwardenError } from '../../errors.ts';

export interface EtcdClientOptions {
  /** Tried in order until one answers. */
  urls: readonly string[];
  username?: string;
  password?: string;
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized?: boolean };
  timeoutMs: number;
}

export interface KeyValue {
  key: string;
  value: string;
  modRevision: string;
}

export type TxnOp = { put: { key: string; value: string } } | { deletePrefix: string } | { delete: string };

/** Guards: the key is unchanged since it was read (`modRevision`), or absent ('0'). */
export interface TxnGuard {
  key: string;
  modRevision: string;
}

export class EtcdError extends HostwardenError {
  readonly status: number | undefined;
  constructor(message: string, options: { transient: boolean; status?: number; cause?: unknown }) {
    super('ETCD_FAILED', message, options);
    this.status = options.status;
  }
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('utf8');

/** The end of the range holding every key that starts with `prefix` (etcd's "prefix" convention). */
export function prefixEnd(prefix: string): string {
  const bytes = Buffer.from(prefix, 'utf8');
  for (let i = bytes.length - 1; i >= 0; i--) {
    if ((bytes[i] ?? 0) < 0xff) {
      const end = Buffer.from(bytes.subarray(0, i + 1));
      end[i] = (end[i] ?? 0) + 1;
      return end.toString('base64');
    }
  }
  return Buffer.from([0]).toString('base64');
}

export class EtcdClient {
  private readonly options: EtcdClientOptions;
  private token: string | undefined;

  constructor(options: EtcdClientOptions) {
    if (options.urls.length === 0) throw new EtcdError('no etcd URL', { transient: false });
    this.options = options;
  }

  async range(prefix: string): Promise<KeyValue[]> {
    const res = (await this.call('/v3/kv/range', { key: b64(prefix), range_end: prefixEnd(prefix) })) as {
      kvs?: { key?: string; value?: string; mod_revision?: string }[];
    };
    return (res.kvs ?? []).map((kv) => ({ key: unb64(kv.key), value: unb64(kv.value), modRevision: kv.mod_revision ?? '0' }));
  }

  /** Applies `ops` atomically if every guard holds; returns false when one did not (a concurrent change). */
  async txn(guards: readonly TxnGuard[], ops: readonly TxnOp[]): Promise<boolean> {
    const compare = guards.map((g) => ({ key: b64(g.key), target: 'MOD', result: 'EQUAL', mod_revision: g.modRevision }));
    const success = ops.map((op) => {
      if ('put' in op) return { request_put: { key: b64(op.put.key), value: b64(op.put.value) } };
      if ('delete' in op) return { request_delete_range: { key: b64(op.delete) } };
      return { request_delete_range: { key: b64(op.deletePrefix), range_end: prefixEnd(op.deletePrefix) } };
    });
    const res = (await this.call('/v3/kv/txn', { compare, success })) as { succeeded?: boolean };
    return res.succeeded === true;
  }

  async put(key: string, value: string): Promise<void> {
    await this.call('/v3/kv/put', { key: b64(key), value: b64(value) });
  }

  private async call(path: string, body: unknown): Promise<unknown> {
    if (this.options.username !== undefined && this.options.username !== '' && this.token === undefined) await this.authenticate();
    try {
      return await this.post(path, body);
    } catch (err) {
      // Tokens expire; authenticate once more and retry.
      if (err instanceof EtcdError && err.status === 401 && this.token !== undefined) {
        this.token = undefined;
        await this.authenticate();
        return this.post(path, body);
      }
      throw err;
    }
  }

  private async authenticate(): Promise<void> {
    const res = (await this.post('/v3/auth/authenticate', { name: this.options.username, password: this.options.password ?? '' })) as { token?: string };
    if (res.token === undefined) throw new EtcdError('etcd authentication returned no token', { transient: false });
    this.token = res.token;
  }

  private async post(path: string, body: unknown): Promise<unknown> {
    let last: unknown;
    for (const url of this.options.urls) {
      try {
        return await this.postTo(url, path, body);
      } catch (err) {
        // Only an unreachable member is worth trying the next URL for.
        if (err instanceof EtcdError && err.status !== undefined) throw err;
        last = err;
      }
    }
    throw last instanceof EtcdError ? last : new EtcdError(`etcd unreachable: ${String(last)}`, { transient: true, cause: last });
  }

  private postTo(base: string, path: string, body: unknown): Promise<unknown> {
    const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
    const payload = Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': payload.length };
    if (this.token !== undefined && !path.startsWith('/v3/auth/')) headers['authorization'] = this.token;
    const tls = this.options.tls;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          method: 'POST',
          headers,
          timeout: this.options.timeoutMs,
          ...(url.protocol === 'https:' && tls !== undefined
            ? {
                ...(tls.ca === undefined ? {} : { ca: tls.ca }),
                ...(tls.cert === undefined ? {} : { cert: tls.cert }),
                ...(tls.key === undefined ? {} : { key: tls.key }),
                rejectUnauthorized: tls.rejectUnauthorized ?? true,
              }
            : {}),
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            // A prefix read of a huge keyspace is a configuration mistake, not something to buffer forever.
            if (size > 256 * 1024 * 1024) req.destroy(new Error('etcd response larger than 256 MiB'));
            else chunks.push(c);
          });
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            let parsed: unknown;
            try {
              parsed = text === '' ? {} : JSON.parse(text);
            } catch {
              parsed = undefined;
            }
            if (status >= 200 && status < 300 && parsed !== undefined) {
              resolve(parsed);
              return;
            }
            const message =
              (parsed as { message?: string; error?: string } | undefined)?.message ?? (parsed as { error?: string } | undefined)?.error ?? text.slice(0, 200);
            // gRPC gateway maps auth failures to 401 and unavailable/timeouts to 5xx.
            reject(new EtcdError(`etcd ${url.host}${path}: HTTP ${status}: ${message}`, { transient: status >= 500 || status === 429, status }));
          });
          res.on('error', (err) => reject(new EtcdError(`etcd ${url.host}: ${err.message}`, { transient: true, cause: err })));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`timeout after ${this.options.timeoutMs} ms`)));
      req.on('error', (err) => reject(new EtcdError(`etcd ${url.host}: ${err.message}`, { transient: true, cause: err })));
      req.end(payload);
    });
  }
}
