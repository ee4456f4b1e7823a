/**
 * `hostwarden run --once --provider pdns` as a user runs it (flags, and the API key from
 * EXTERNAL_DNS_PDNS_API_KEY), against a real PowerDNS; the result is checked with dig.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '../support/cli.ts';
import { dig } from '../support/dig.ts';
import { pdnsUnavailable, startPdns } from '../support/pdns.ts';
import type { PdnsServer } from '../support/pdns.ts';

const skip = await pdnsUnavailable();

describe('run --once --provider pdns', { skip: skip ?? false }, () => {
  let server: PdnsServer;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hw-pdns-cli-'));
    await mkdir(join(dir, 'manifests'));
    await copyFile(join(REPO_ROOT, 'examples', 'web.yaml'), join(dir, 'manifests', 'web.yaml'));
    server = await startPdns();
    await server.createZone('example.org');
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('syncs the manifest into PowerDNS with ownership; a second run changes nothing', async () => {
    const args = [
      'run',
      '--once',
      '--provider',
      'pdns',
      '--pdns-server',
      server.apiUrl,
      '--manifests-dir',
      join(dir, 'manifests'),
      '--txt-owner-id',
      'cli',
      '--log-format',
      'json',
    ];
    const env = { EXTERNAL_DNS_PDNS_API_KEY: server.apiKey };
    const first = await runCli(args, { env, timeoutMs: 90_000 });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual((await dig(server.dnsPort, ['www.example.org', 'A'])).answer, ['www.example.org. 300 IN A 192.0.2.10']);
    assert.deepEqual(
      (await dig(server.dnsPort, ['a-www.example.org', 'TXT', '+short'])).raw.trim(),
      '"heritage=external-dns,external-dns/owner=cli,external-dns/resource=service/default/web"',
    );
    const second = await runCli(args, { env, timeoutMs: 90_000 });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /"create":0,"update":0,"delete":0/);
  });

  test('a missing API key stops start-up with exit code 2 and names the flag', async () => {
    const res = await runCli(['run', '--once', '--provider', 'pdns', '--pdns-server', server.apiUrl, '--manifests-dir', join(dir, 'manifests')], {
      timeoutMs: 90_000,
    });
    assert.equal(res.code, 2, res.stderr);
    assert.match(res.stderr, /--pdns-api-key is required/);
  });
});
