/**
 * external-dns's connector source tests (connector.json beside this file, facts only) through
 * Hostwarden's connector source: a TCP server on 127.0.0.1 writes the case's gob bytes (what Go's
 * encoder writes for upstream's []*Endpoint, made by test/support/gob/encode-endpoints.go) and
 * closes, as upstream's test server does. With a Go toolchain installed, the bytes are checked
 * against a fresh run of that program.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../../../src/log.ts';
import { ConnectorSource } from '../../../../src/source/connector/connector-source.ts';

interface CaseEndpoint {
  dnsName: string;
  targets: string[];
  recordType: string;
  recordTTL?: number;
}

interface ConnectorCase {
  name: string;
  upstreamTest: string;
  server: boolean;
  sent?: CaseEndpoint[] | null;
  gob?: string;
  expected?: CaseEndpoint[];
  expectError?: boolean;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../../../..');
const data = JSON.parse(readFileSync(join(HERE, 'connector.json'), 'utf8')) as { upstream: string; cases: ConnectorCase[] };

/** A server that writes `bytes` to the first connection and closes it; its port. */
async function serve(bytes: Buffer): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.end(bytes));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A port nothing listens on: one just bound and closed. */
async function closedPort(): Promise<number> {
  const { server, port } = await serve(Buffer.alloc(0));
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const key = (e: CaseEndpoint): string => JSON.stringify([e.dnsName, e.recordType, [...e.targets].sort(), e.recordTTL ?? 0]);

const goPath = ['/usr/bin/go', '/usr/local/go/bin/go'].find((p) => existsSync(p));

describe(`connector.json (external-dns ${data.upstream})`, () => {
  for (const c of data.cases) {
    test(c.upstreamTest, async () => {
      const bytes = Buffer.from(c.gob ?? '', 'hex');
      const listening = c.server ? await serve(bytes) : undefined;
      const port = listening?.port ?? (await closedPort());
      const source = new ConnectorSource({ server: `127.0.0.1:${port}`, logger: silentLogger(), timeoutMs: 5000 });
      try {
        if (c.expectError === true) {
          await assert.rejects(source.endpoints(), /connector: reading endpoints from 127\.0\.0\.1:\d+ failed/);
          return;
        }
        const got = (await source.endpoints()).map((e) => ({ dnsName: e.dnsName, targets: [...e.targets], recordType: e.recordType, recordTTL: e.recordTTL }));
        assert.deepEqual(got.map(key).sort(), (c.expected ?? []).map(key).sort());
      } finally {
        await new Promise((resolve) => (listening === undefined ? resolve(undefined) : listening.server.close(resolve)));
      }
    });
  }

  test('the gob bytes are what Go writes for the endpoints', { skip: goPath === undefined && 'no Go toolchain (Debian: golang-go)' }, () => {
    for (const c of data.cases) {
      if (c.gob === undefined) continue;
      const out = execFileSync(goPath ?? 'go', ['run', join(ROOT, 'test/support/gob/encode-endpoints.go')], {
        input: JSON.stringify(c.sent ?? null),
        env: { ...process.env, GOFLAGS: '-mod=mod', GO111MODULE: 'off' },
        timeout: 120_000,
      });
      assert.equal(out.toString('hex'), c.gob, c.name);
    }
  });
});
