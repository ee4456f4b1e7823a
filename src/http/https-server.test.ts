import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { selfSignedCertificate } from './tls.ts';
import type { TlsMaterial } from './tls.ts';
import type { TLSSocket } from 'node:tls';
import { silentLogger } from '../log.ts';
import { opensslUnavailable } from '../../test/support/tls.ts';
import { HttpsServer, notFound, readBody, readPost } from './https-server.ts';

const skip = (await opensslUnavailable()) ?? false;

function call(port: number, path: string, body?: string): Promise<{ status: number; text: string; cert: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: body === undefined ? 'GET' : 'POST', rejectUnauthorized: false, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      const cert = res.socket !== null && 'getPeerCertificate' in res.socket ? (res.socket as TLSSocket).getPeerCertificate().fingerprint256 : '';
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), cert }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('HttpsServer', { skip }, () => {
  let server: HttpsServer;
  let port: number;
  let second: TlsMaterial;

  before(async () => {
    const tls = await selfSignedCertificate(['127.0.0.1']);
    second = await selfSignedCertificate(['127.0.0.1']);
    server = new HttpsServer({
      tls,
      logger: silentLogger(),
      name: 'test webhook',
      healthPaths: ['/healthz'],
      handle: async (req, res, path) => {
        if (path === '/boom') throw new Error('boom');
        if (path === '/echo') {
          const body = await readBody(req, 8);
          res.writeHead(body === undefined ? 413 : 200).end(body ?? '');
          return;
        }
        if (path === '/post') {
          const body = await readPost(req, res, 8);
          if (body !== undefined) res.writeHead(200).end(body);
          return;
        }
        notFound(res);
      },
    });
    port = (await server.start('127.0.0.1', 0)).port;
  });
  after(async () => {
    await server?.stop();
  });

  test('serves the health paths itself and passes other paths, without the query, to handle', async () => {
    assert.deepEqual((await call(port, '/healthz')).text, 'ok\n');
    const other = await call(port, '/readyz?x=1');
    assert.equal(other.status, 404);
    assert.equal(other.text, 'not found\n');
  });

  test('a handler that throws gets a 500 and the server keeps serving', async () => {
    const r = await call(port, '/boom');
    assert.equal(r.status, 500);
    assert.equal(r.text, 'internal error\n');
    assert.equal((await call(port, '/healthz')).status, 200);
  });

  test('readBody returns the body within the limit and undefined beyond it', async () => {
    const within = await call(port, '/echo', '12345678');
    assert.equal(within.status, 200);
    assert.equal(within.text, '12345678');
    assert.equal((await call(port, '/echo', '123456789')).status, 413);
  });

  test('readPost answers 405 to other methods and 413 to large bodies', async () => {
    assert.equal((await call(port, '/post')).status, 405);
    assert.equal((await call(port, '/post', '123456789')).status, 413);
    assert.equal((await call(port, '/post', 'review')).text, 'review');
  });

  test('setCertificate serves the new certificate to new connections', async () => {
    const before = (await call(port, '/healthz')).cert;
    server.setCertificate(second);
    const after = (await call(port, '/healthz')).cert;
    assert.notEqual(after, before);
  });
});
