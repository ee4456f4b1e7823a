/**
 * Checks a request's AWS Signature Version 4 as AWS does: the canonical request rebuilt from the
 * method, path, query, the signed headers and the payload, signed with the secret key of the
 * access key the Authorization header names. A request signed with another secret, or altered
 * after signing, fails with SignatureDoesNotMatch. (Header-signed requests only; this emulator's
 * clients never presign URLs.)
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256 = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
/** RFC 3986 encoding as SigV4 wants it (unreserved characters kept). */
const encode = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface SignedRequest {
  method: string;
  /** The raw path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Undefined when the signature is right; otherwise why it is not. */
export function sigv4Problem(req: SignedRequest, secretAccessKey: string): string | undefined {
  const auth = String(req.headers.authorization ?? '');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (m === null) return 'malformed Authorization header';
  const [, , date = '', region = '', service = '', signedHeaders = '', signature = ''] = m;
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(date)) return 'x-amz-date does not match the credential scope date';
  const q = req.url.indexOf('?');
  const rawPath = q < 0 ? req.url : req.url.slice(0, q);
  const rawQuery = q < 0 ? '' : req.url.slice(q + 1);
  const path = rawPath
    .split('/')
    .map((seg) => encode(decodeURIComponent(seg)))
    .join('/');
  const query = rawQuery
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      const k = decodeURIComponent((eq < 0 ? p : p.slice(0, eq)).replace(/\+/g, ' '));
      const v = eq < 0 ? '' : decodeURIComponent(p.slice(eq + 1).replace(/\+/g, ' '));
      return [encode(k), encode(v)] as const;
    })
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const names = signedHeaders.split(';');
  const headers = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const payload = typeof req.headers['x-amz-content-sha256'] === 'string' ? req.headers['x-amz-content-sha256'] : sha256(req.body);
  const canonical = [req.method, path === '' ? '/' : path, query, headers, signedHeaders, payload].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
  return expected === signature ? undefined : 'The request signature we calculated does not match the signature you provided.';
}
