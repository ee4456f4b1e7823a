/**
 * The HTTP side of the emulator: Cloudflare's response envelope, request bodies (size-limited,
 * JSON), the two authentication schemes, the per-user rate limit and call counting.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CloudflareFault } from './rules.ts';

/** Largest request body accepted (a 3,500-change batch fits comfortably). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface Envelope {
  success: boolean;
  errors: { code: number; message: string; error_chain?: { code: number; message: string }[] }[];
  messages: unknown[];
  result: unknown;
  result_info?: unknown;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function faultEnvelope(f: CloudflareFault): Envelope {
  const error = f.chain.length > 0 ? { code: f.code, message: f.message, error_chain: f.chain } : { code: f.code, message: f.message };
  return { success: false, errors: [error], messages: [], result: null };
}

/** Reads the body; rejects oversize bodies with 413 and malformed JSON with Cloudflare's 6007. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new CloudflareFault(413, 6007, 'Request body too large.');
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new CloudflareFault(400, 6007, 'Malformed JSON in request body');
  }
}

export interface Credentials {
  /** API tokens accepted, each with what it may do. */
  tokens: Map<string, 'edit' | 'read'>;
  apiKey: string;
  apiEmail: string;
}

/** The caller's identity (for the per-user rate limit) and rights, or a Cloudflare auth fault. */
export function authenticate(req: IncomingMessage, creds: Credentials): { user: string; canEdit: boolean } {
  const auth = req.headers.authorization;
  const key = req.headers['x-auth-key'];
  const email = req.headers['x-auth-email'];
  if (auth !== undefined) {
    const m = /^Bearer ([A-Za-z0-9_-]+)$/.exec(auth);
    if (m === null) throw new CloudflareFault(400, 6003, 'Invalid request headers', [{ code: 6111, message: 'Invalid format for Authorization header' }]);
    const scope = creds.tokens.get(m[1] ?? '');
    if (scope === undefined) throw new CloudflareFault(401, 9109, 'Invalid access token');
    return { user: `token:${m[1]}`, canEdit: scope === 'edit' };
  }
  if (key !== undefined || email !== undefined) {
    if (typeof key !== 'string' || !/^[0-9a-f]{37}$/i.test(key)) {
      throw new CloudflareFault(400, 6003, 'Invalid request headers', [{ code: 6103, message: 'Invalid format for X-Auth-Key header' }]);
    }
    if (typeof email !== 'string' || !email.includes('@')) {
      throw new CloudflareFault(400, 6003, 'Invalid request headers', [{ code: 6102, message: 'Invalid format for X-Auth-Email header' }]);
    }
    if (key !== creds.apiKey || email !== creds.apiEmail) throw new CloudflareFault(403, 9103, 'Unknown X-Auth-Key or X-Auth-Email');
    return { user: `key:${email}`, canEdit: true };
  }
  throw new CloudflareFault(400, 9106, 'Missing X-Auth-Key, X-Auth-Email or Authorization headers');
}

/**
 * Cloudflare's global limit: `limit` requests per `windowMs` per user; past it every request is
 * refused until the window that started with the first counted request has passed.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    public limit: number,
    public windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Null when admitted, else seconds until the window resets (for Retry-After). */
  admit(user: string): number | null {
    const t = this.now();
    let w = this.windows.get(user);
    if (w === undefined || t - w.start >= this.windowMs) {
      w = { start: t, count: 0 };
      this.windows.set(user, w);
    }
    if (w.count >= this.limit) return Math.max(1, Math.ceil((w.start + this.windowMs - t) / 1000));
    w.count++;
    return null;
  }

  reset(): void {
    this.windows.clear();
  }
}

/** API calls by `METHOD /route/:pattern`; seeding through the emulator's methods never counts. */
export class CallCounter {
  private readonly counts = new Map<string, number>();
  /** Requests answered with 429 by the rate limiter. */
  throttled = 0;

  add(route: string): void {
    this.counts.set(route, (this.counts.get(route) ?? 0) + 1);
  }

  /** Calls to one route pattern, e.g. `GET /zones/:id/dns_records`. */
  get(route: string): number {
    return this.counts.get(route) ?? 0;
  }

  get total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  /** Every route called so far with its count. */
  byRoute(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  reset(): void {
    this.counts.clear();
    this.throttled = 0;
  }
}
