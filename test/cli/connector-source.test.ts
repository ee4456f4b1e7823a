/**
 * --source=connector end to end: `hostwarden run` with nothing listening at
 * --connector-source-server logs a clear, transient error and keeps serving; once a server there
 * sends endpoints (Go's gob bytes from test/conformance/external-dns/connector/connector.json), the
 * records are in the embedded zone.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/cli.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import { waitFor } from '../kube/harness.ts';

const data = JSON.parse(readFileSync(join(REPO_ROOT, 'test/conformance/external-dns/connector/connector.json'), 'utf8')) as {
  cases: { name: string; gob?: string }[];
};
/** abc.example.org A 1.2.3.4, TTL 180, as Go's encoder writes it. */
const GOB = Buffer.from(data.cases.find((c) => c.name === 'valid remote server')?.gob ?? '', 'hex');

test('connector: an unreachable server fails syncs with a clear error, the process keeps serving, and records follow once it answers', async (t) => {
  if (!(await digAvailable())) return t.skip('dig is not installed');
  const dir = await mkdtemp(join(tmpdir(), 'hw-connector-'));
  const server = createServer((socket) => socket.end(GOB));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  const hw = await startHostwarden([
    ...['--source=connector', `--connector-source-server=127.0.0.1:${port}`],
    ...['--embedded-zone', 'example.org', '--embedded-data-dir', join(dir, 'data'), '--txt-owner-id', 'conn', '--interval', '1s', '--log-level', 'info'],
  ]);
  try {
    const failed = await hw.waitForLog((l) => l['msg'] === 'synchronisation failed');
    assert.match(String(failed['err']), new RegExp(`connector: reading endpoints from 127\\.0\\.0\\.1:${port} failed: .*ECONNREFUSED`));
    assert.equal(failed['transient'], true);
    assert.equal(hw.child.exitCode, null, 'still running');

    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const answer = await waitFor(
      'the record',
      async () => {
        const r = await dig(hw.dnsPort, ['abc.example.org', 'A']);
        return r.answer.length > 0 ? r.answer : undefined;
      },
      20_000,
    );
    assert.deepEqual(answer, ['abc.example.org. 180 IN A 1.2.3.4']);
  } finally {
    await hw.stop();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
});
