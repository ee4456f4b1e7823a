/**
 * A throw-away self-signed certificate for HTTPS test servers on 127.0.0.1, made with the openssl
 * command line (the official cloud SDKs refuse plain http with bearer tokens).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SelfSignedCert {
  dir: string;
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
  cleanup(): Promise<void>;
}

/** Null when openssl is missing, so tests can skip with a reason. */
export async function opensslUnavailable(): Promise<string | null> {
  try {
    await run('openssl', ['version'], { timeout: 10_000 });
    return null;
  } catch {
    return 'openssl is not installed';
  }
}

/** Reads an existing pair from `dir` (made by makeSelfSignedCert in a parent process). */
export async function loadSelfSignedCert(dir: string): Promise<SelfSignedCert> {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  return { dir, certFile, keyFile, cert: await readFile(certFile), key: await readFile(keyFile), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes a self-signed EC certificate for 127.0.0.1 and localhost (subject CN=`cn`) to the two files. */
export async function writeSelfSignedCert(cn: string, certFile: string, keyFile: string): Promise<void> {
  await run(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { timeout: 30_000 },
  );
}

export async function makeSelfSignedCert(): Promise<SelfSignedCert> {
  const dir = await mkdtemp(join(tmpdir(), 'hostwarden-tls-'));
  try {
    await writeSelfSignedCert('127.0.0.1', join(dir, 'cert.pem'), join(dir, 'key.pem'));
    return await loadSelfSignedCert(dir);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A test CA and, signed by it, a server certificate for 127.0.0.1 and a client certificate, in
 * `dir` (ca.crt/.key, server.crt/.key, client.crt/.key): for mutual-TLS tests.
 */
export async function makeCaSignedCerts(dir: string): Promise<void> {
  const ssl = (args: string[]): Promise<unknown> => run('openssl', args, { cwd: dir, timeout: 30_000 });
  await ssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=hostwarden test CA']);
  for (const [name, ext] of [
    ['server', 'subjectAltName=IP:127.0.0.1'],
    ['client', 'extendedKeyUsage=clientAuth'],
  ] as const) {
    await ssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
    await writeFile(join(dir, `${name}.ext`), `${ext}\n`);
    await ssl([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ]);
  }
}

export interface JsonReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface JsonRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** An HTTPS server on 127.0.0.1 (port 0) answering JSON; a handler that throws becomes a 500. */
export async function startJsonHttps(
  cert: SelfSignedCert,
  handler: (req: JsonRequest) => JsonReply | Promise<JsonReply>,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createHttpsServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : (JSON.parse(text) as unknown);
      } catch {
        body = text;
      }
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      Promise.resolve()
        .then(() => handler({ method: req.method ?? 'GET', url, headers: req.headers, body }))
        .catch((err: unknown): JsonReply => ({ status: 500, body: { error: { code: 500, message: String(err) } } }))
        .then(
          (reply) => {
            const data = reply.body === undefined ? '' : JSON.stringify(reply.body);
            res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(data), ...reply.headers });
            res.end(data);
          },
          () => res.destroy(),
        );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
