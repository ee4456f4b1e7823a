/**
 * The pdns TLS flags against a mutual-TLS proxy in front of a real PowerDNS (PowerDNS's own
 * webserver has no TLS; production setups put a proxy in front of it). Certificates come from
 * openssl in a temp directory.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FlagValues } from '../../src/config/config.ts';
import type { FlagValue } from '../../src/config/parse.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import { ConfigError, ProviderError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { PdnsProvider } from '../../src/provider/pdns/pdns.ts';
import { pdnsUnavailable, startPdns } from '../support/pdns.ts';
import { makeCaSignedCerts } from '../support/tls.ts';
import type { PdnsServer } from '../support/pdns.ts';

const run = promisify(execFile);
const hasOpenssl = await run('openssl', ['version']).then(
  () => true,
  () => false,
);
const skip = (await pdnsUnavailable()) ?? (hasOpenssl ? undefined : 'openssl is not installed');
const flags = (values: Record<string, FlagValue>): FlagValues => new FlagValues(new Map(Object.entries(values)));
const cfgOf = (f: FlagValues) => ({ flags: f, domainFilters: [], excludeDomains: [] });
const deps = { logger: silentLogger(), sleep: (): Promise<void> => Promise.resolve() };

describe('pdns provider over mutual TLS', { skip: skip ?? false }, () => {
  let dir: string;
  let pdns: PdnsServer;
  let proxy: Server;
  let url: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hw-pdns-tls-'));
    await makeCaSignedCerts(dir);
    pdns = await startPdns();
    await pdns.createZone('example.test');
    const [key, cert, ca] = await Promise.all(['server.key', 'server.crt', 'ca.crt'].map((f) => readFile(join(dir, f))));
    proxy = createServer({ key, cert, ca, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const h of ['x-api-key', 'content-type', 'accept']) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h];
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        fetch(`${pdns.apiUrl}${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.timeout(10_000),
        })
          .then(async (r) => res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' }).end(Buffer.from(await r.arrayBuffer())))
          .catch(() => res.writeHead(502).end());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    proxy?.closeAllConnections();
    await new Promise<void>((resolve) => (proxy === undefined ? resolve() : proxy.close(() => resolve())));
    await pdns?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const base = (): Record<string, FlagValue> => ({ 'pdns-server': url, 'pdns-api-key': pdns.apiKey, 'pdns-tls-enabled': true });

  test("external-dns's flags: an https --pdns-server with --tls-ca, --tls-client-cert and --tls-client-cert-key", async () => {
    const p = await PdnsProvider.fromConfig(
      cfgOf(
        flags({
          'pdns-server': url,
          'pdns-api-key': pdns.apiKey,
          'tls-ca': join(dir, 'ca.crt'),
          'tls-client-cert': join(dir, 'client.crt'),
          'tls-client-cert-key': join(dir, 'client.key'),
        }),
      ),
      deps,
    );
    await p.applyChanges({
      create: [newEndpoint({ dnsName: 'upstream-tls.example.test', recordType: 'A', targets: ['192.0.2.78'] })],
      updateOld: [],
      updateNew: [],
      delete: [],
    });
    assert.deepEqual((await p.records()).find((r) => r.dnsName === 'upstream-tls.example.test')?.targets, ['192.0.2.78']);
    // Without --tls-ca the proxy's certificate is refused; with --pdns-skip-tls-verify it is accepted.
    const client = { 'tls-client-cert': join(dir, 'client.crt'), 'tls-client-cert-key': join(dir, 'client.key') };
    await assert.rejects(
      PdnsProvider.fromConfig(cfgOf(flags({ 'pdns-server': url, 'pdns-api-key': pdns.apiKey, ...client })), deps),
      (err: unknown) => err instanceof ProviderError && /certificate/i.test(err.message),
    );
    const skipped = await PdnsProvider.fromConfig(
      cfgOf(flags({ 'pdns-server': url, 'pdns-api-key': pdns.apiKey, ...client, 'pdns-skip-tls-verify': true })),
      deps,
    );
    assert.ok(skipped.domainFilter().match('www.example.test'));
  });

  test('CA and client certificate: changes go through', async () => {
    const p = await PdnsProvider.fromConfig(
      cfgOf(
        flags({
          ...base(),
          'pdns-tls-ca-cert': join(dir, 'ca.crt'),
          'pdns-tls-client-cert': join(dir, 'client.crt'),
          'pdns-tls-client-cert-key': join(dir, 'client.key'),
        }),
      ),
      deps,
    );
    await p.applyChanges({
      create: [newEndpoint({ dnsName: 'tls.example.test', recordType: 'A', targets: ['192.0.2.77'] })],
      updateOld: [],
      updateNew: [],
      delete: [],
    });
    assert.deepEqual((await p.records()).find((r) => r.dnsName === 'tls.example.test')?.targets, ['192.0.2.77']);
  });

  test('without the CA the server certificate is refused; --pdns-skip-tls-verify accepts it', async () => {
    const client = { 'pdns-tls-client-cert': join(dir, 'client.crt'), 'pdns-tls-client-cert-key': join(dir, 'client.key') };
    await assert.rejects(
      PdnsProvider.fromConfig(cfgOf(flags({ ...base(), ...client })), deps),
      (err: unknown) => err instanceof ProviderError && /certificate/i.test(err.message),
    );
    const p = await PdnsProvider.fromConfig(cfgOf(flags({ ...base(), ...client, 'pdns-skip-tls-verify': true })), deps);
    assert.ok(p.domainFilter().match('www.example.test'));
  });

  test('without a client certificate the proxy refuses the connection', async () => {
    await assert.rejects(PdnsProvider.fromConfig(cfgOf(flags({ ...base(), 'pdns-tls-ca-cert': join(dir, 'ca.crt') })), deps), ProviderError);
  });

  test('flag mistakes are configuration errors naming the flag', async () => {
    const reject = (values: Record<string, FlagValue>, flag: string): Promise<void> =>
      assert.rejects(
        PdnsProvider.fromConfig(cfgOf(flags({ 'pdns-api-key': 'k', ...values })), deps),
        (err: unknown) => err instanceof ConfigError && err.flag === flag,
      );
    await reject({ 'pdns-server': 'http://127.0.0.1:1', 'pdns-tls-enabled': true }, '--pdns-server');
    await reject({ 'pdns-server': url, 'pdns-tls-enabled': true, 'pdns-tls-client-cert': join(dir, 'client.crt') }, '--pdns-tls-client-cert-key');
    await reject({ 'pdns-server': url, 'pdns-tls-enabled': true, 'pdns-tls-ca-cert': join(dir, 'missing.crt') }, '--pdns-tls-ca-cert');
    await reject({ 'pdns-server': 'http://127.0.0.1:1', 'pdns-tls-ca-cert': join(dir, 'ca.crt') }, '--pdns-server');
    await reject({ 'pdns-server': url, 'tls-client-cert': join(dir, 'client.crt') }, '--tls-client-cert-key');
    await reject({ 'pdns-server': url, 'tls-ca': join(dir, 'missing.crt') }, '--tls-ca');
    await reject({ 'pdns-server': 'not a url' }, '--pdns-server');
  });
});
