/**
 * End to end, as a user would run it: `hostwarden webhook-server --provider embedded` holds the
 * zone and answers DNS; `hostwarden run --once --provider webhook` syncs a manifest through it.
 * The record and its ownership TXT must then be answered by the server's DNS port, and a second
 * run must change nothing.
 */
import { idleConnections } from '../support/idle-connections.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, REPO_ROOT, runCli } from '../support/cli.ts';
import { dig, digAvailable } from '../support/dig.ts';

const hasDig = await digAvailable();

interface Started {
  child: ChildProcess;
  url: string;
  dnsPort: number;
  stderr: () => string;
}

async function startWebhookServer(dataDir: string, argv?: string[]): Promise<Started> {
  const child = spawn(
    process.execPath,
    argv !== undefined
      ? [BIN, ...argv]
      : [
          BIN,
          'webhook-server',
          '--provider',
          'embedded',
          '--embedded-zone',
          'example.org',
          '--embedded-data-dir',
          dataDir,
          '--listen',
          '127.0.0.1:0',
          '--dns-listen',
          '127.0.0.1:0',
          '--log-format',
          'json',
          '--http-max-connections',
          '64',
        ],
    { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let text = '';
  let url = '';
  let dnsPort = 0;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`webhook-server did not start:\n${text}`)), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`webhook-server exited with ${code}:\n${text}`));
    });
    child.stderr?.on('data', (d: Buffer) => {
      text += d.toString();
      for (const line of text.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const l = JSON.parse(line) as { msg?: string; address?: string; addresses?: string[] };
          if (l.msg === 'webhook server listening' && l.address !== undefined) url = `http://${l.address}`;
          if (l.msg === 'DNS server listening' && l.addresses?.[0] !== undefined) dnsPort = Number(l.addresses[0].slice(l.addresses[0].lastIndexOf(':') + 1));
        } catch {
          // a partial line: the rest arrives with the next chunk
        }
      }
      if (url !== '' && (dnsPort !== 0 || argv !== undefined)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { child, url, dnsPort, stderr: () => text };
}

describe('run --provider webhook against webhook-server --provider embedded', { skip: hasDig ? false : 'dig is not installed' }, () => {
  let dir: string;
  let server: Started;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hw-webhook-e2e-'));
    await mkdir(join(dir, 'manifests'));
    await copyFile(join(REPO_ROOT, 'examples', 'web.yaml'), join(dir, 'manifests', 'web.yaml'));
    server = await startWebhookServer(join(dir, 'data'));
  });
  after(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  });

  test('a manifest becomes a DNS answer of the webhook server; the second run is a no-op', async () => {
    const args = [
      'run',
      '--once',
      '--provider',
      'webhook',
      '--webhook-provider-url',
      server.url,
      '--manifests-dir',
      join(dir, 'manifests'),
      '--txt-owner-id',
      'e2e',
      '--log-format',
      'json',
    ];
    const first = await runCli(args, { timeoutMs: 90_000 });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /"create":1/);

    const a = await dig(server.dnsPort, ['www.example.org', 'A']);
    assert.deepEqual(a.answer, ['www.example.org. 300 IN A 192.0.2.10']);
    const txt = await dig(server.dnsPort, ['a-www.example.org', 'TXT']);
    assert.deepEqual(txt.answer, ['a-www.example.org. 300 IN TXT "heritage=external-dns,external-dns/owner=e2e,external-dns/resource=service/default/web"']);

    const second = await runCli(args, { timeoutMs: 90_000 });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /"create":0,"update":0,"delete":0/);
  });

  test('a wildcard and its a-*.apps ownership TXT travel through the webhook both ways and are answered', async () => {
    const manifests = join(dir, 'wild-manifests');
    await mkdir(manifests, { recursive: true });
    const manifest = (target: string): string =>
      [
        'apiVersion: externaldns.k8s.io/v1alpha1',
        'kind: DNSEndpoint',
        'metadata: { name: apps, namespace: default }',
        'spec:',
        '  endpoints:',
        `    - { dnsName: "*.apps.example.org", recordType: A, recordTTL: 300, targets: ["${target}"] }`,
        '',
      ].join('\n');
    await writeFile(join(manifests, 'apps.yaml'), manifest('192.0.2.40'));
    const args = [
      'run',
      '--once',
      '--provider',
      'webhook',
      '--webhook-provider-url',
      server.url,
      '--manifests-dir',
      manifests,
      '--txt-owner-id',
      'e2e-wild',
      '--log-format',
      'json',
    ];
    const first = await runCli(args, { timeoutMs: 90_000 });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual((await dig(server.dnsPort, ['x.apps.example.org', 'A'])).answer, ['x.apps.example.org. 300 IN A 192.0.2.40']);
    assert.deepEqual((await dig(server.dnsPort, ['a-*.apps.example.org', 'TXT'])).answer, [
      'a-*.apps.example.org. 300 IN TXT "heritage=external-dns,external-dns/owner=e2e-wild,external-dns/resource=crd/default/apps"',
    ]);
    const second = await runCli(args, { timeoutMs: 90_000 });
    assert.match(second.stderr, /"create":0,"update":0,"delete":0/, 'read back through GET /records and owned');
    await writeFile(join(manifests, 'apps.yaml'), manifest('192.0.2.41'));
    assert.equal((await runCli(args, { timeoutMs: 90_000 })).code, 0);
    assert.deepEqual((await dig(server.dnsPort, ['y.apps.example.org', 'A'])).answer, ['y.apps.example.org. 300 IN A 192.0.2.41']);
    await rm(join(manifests, 'apps.yaml'));
    assert.equal((await runCli(args, { timeoutMs: 90_000 })).code, 0);
    assert.equal((await dig(server.dnsPort, ['a-*.apps.example.org', 'TXT'])).status, 'NXDOMAIN');
    assert.equal((await dig(server.dnsPort, ['y.apps.example.org', 'A'])).status, 'NXDOMAIN');
  });

  test('credentials in --webhook-provider-url are sent as Basic auth and never logged, even in errors', async () => {
    const withSecret = server.url.replace('http://', 'http://hostwarden:s3cr3t-pw@');
    const ok = await runCli(
      [
        'run',
        '--once',
        '--provider',
        'webhook',
        '--webhook-provider-url',
        withSecret,
        '--manifests-dir',
        join(dir, 'manifests'),
        '--txt-owner-id',
        'e2e',
        '--log-format',
        'text',
        '--log-level',
        'debug',
      ],
      { timeoutMs: 90_000 },
    );
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, /url: "http:\/\/127\.0\.0\.1:\d+\/"/);
    assert.doesNotMatch(ok.stderr, /s3cr3t/);
    // Nothing listens on port 9: every retry fails, and the final error is printed.
    const down = await runCli(
      [
        'run',
        '--once',
        '--provider',
        'webhook',
        '--webhook-provider-url',
        'http://hostwarden:s3cr3t-pw@127.0.0.1:9/',
        '--manifests-dir',
        join(dir, 'manifests'),
        '--log-format',
        'text',
      ],
      { timeoutMs: 90_000 },
    );
    assert.notEqual(down.code, 0);
    assert.match(down.stderr, /cannot reach the webhook provider/);
    assert.doesNotMatch(down.stderr, /s3cr3t/);
    const bad = await runCli(['run', '--once', '--provider', 'webhook', '--webhook-provider-url', 'ftp://hostwarden:s3cr3t-pw@127.0.0.1/'], {
      timeoutMs: 90_000,
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--webhook-provider-url "ftp:\/\/REDACTED@127\.0\.0\.1\/" is not an http/);
    assert.doesNotMatch(bad.stderr, /s3cr3t/);
  });

  test('the real server refuses a browser-style text/plain POST with 415, and the record never appears', async () => {
    const res = await fetch(`${server.url}/records`, {
      method: 'POST',
      body: JSON.stringify({ create: [{ dnsName: 'csrf.example.org', targets: ['203.0.113.66'], recordType: 'A' }] }),
    });
    assert.equal(res.status, 415);
    assert.equal((await dig(server.dnsPort, ['csrf.example.org', 'A'])).status, 'NXDOMAIN');
  });

  test('600 idle connections beyond --http-max-connections 64: the API still answers and descriptors stay bounded', async () => {
    const port = Number(new URL(server.url).port);
    const { sockets } = await idleConnections(port, 600);
    try {
      const res = await fetch(`${server.url}/healthz`);
      assert.equal(res.status, 200);
      const root = await fetch(`${server.url}/`, { headers: { accept: 'application/external.dns.webhook+json;version=1' } });
      assert.equal(root.status, 200);
      const fds = (await readdir(`/proc/${server.child.pid ?? 0}/fd`)).length;
      // 64 connections and the process's own files (DNS sockets, zone files, stdio, the event loop).
      assert.ok(fds < 64 + 60, `the server holds ${fds} file descriptors`);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });

  test('webhook-server stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    const killer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
    assert.equal(await exited, 0, server.stderr());
    clearTimeout(killer);
  });
});

describe("external-dns's --webhook-server: `hostwarden --webhook-server --provider inmemory` serves the webhook API", () => {
  let server: Started;
  before(async () => {
    server = await startWebhookServer('', [
      '--webhook-server',
      '--provider',
      'inmemory',
      '--inmemory-zone',
      'example.org',
      '--listen',
      '127.0.0.1:0',
      '--webhook-provider-max-body-size',
      '2000',
      '--webhook-provider-read-header-timeout',
      '2s',
      '--log-format',
      'json',
    ]);
  });
  after(() => {
    if (server !== undefined && server.child.exitCode === null) server.child.kill('SIGKILL');
  });

  test('negotiates, takes a change, and refuses a body over --webhook-provider-max-body-size with 413', async () => {
    const media = 'application/external.dns.webhook+json;version=1';
    const root = await fetch(`${server.url}/`, { headers: { accept: media } });
    assert.equal(root.status, 200);
    const small = await fetch(`${server.url}/records`, {
      method: 'POST',
      headers: { 'content-type': media },
      body: JSON.stringify({ Create: [{ dnsName: 'www.example.org', targets: ['192.0.2.1'], recordType: 'A' }] }),
    });
    assert.equal(small.status, 204, await small.text());
    const listed = (await (await fetch(`${server.url}/records`, { headers: { accept: media } })).json()) as { dnsName: string }[];
    assert.deepEqual(
      listed.map((r) => r.dnsName),
      ['www.example.org'],
    );
    const big = await fetch(`${server.url}/records`, {
      method: 'POST',
      headers: { 'content-type': media },
      body: JSON.stringify({ Create: [{ dnsName: 'big.example.org', targets: ['192.0.2.2'], recordType: 'TXT', labels: { pad: 'x'.repeat(3000) } }] }),
    });
    assert.equal(big.status, 413);
  });
});
