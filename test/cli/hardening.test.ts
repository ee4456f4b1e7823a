/**
 * Issue 16's smaller defects, against the real process (`bin/hostwarden`): /healthz and /readyz
 * follow the sync loop, the metrics port survives a flood of idle connections, the text log
 * format cannot be forged by a hostname, a self-referencing CNAME is refused at the source, a
 * burst of refused transfers logs a few lines, and --dns-tsig-key's help, parser and errors agree.
 */
import { idleConnections } from '../support/idle-connections.ts';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encode } from 'dns-packet';
import { runCli } from '../support/cli.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { loadBalancerService } from '../support/manifests.ts';

const hasDig = await digAvailable();

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body.trim() }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
  });
}

/** Polls until `pred` holds for the answer of `path`; bounded by `limitMs`. */
async function waitForStatus(
  port: number,
  path: string,
  pred: (r: { status: number; body: string }) => boolean,
  limitMs: number,
): Promise<{ status: number; body: string }> {
  const started = Date.now();
  let last = await httpGet(port, path);
  while (!pred(last) && Date.now() - started < limitMs) {
    await new Promise((r) => setTimeout(r, 100));
    last = await httpGet(port, path);
  }
  assert.ok(pred(last), `${path} stayed ${last.status} ${last.body}`);
  return last;
}

describe('/healthz and /readyz follow the sync loop', () => {
  let root: string;
  let hw: RunningHostwarden | undefined;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'hw-health-'));
    // The manifests directory does not exist yet: every sync fails (a transient source error).
    hw = await startHostwarden([
      '--manifests-dir',
      join(root, 'manifests'),
      '--embedded-data-dir',
      join(root, 'data'),
      '--embedded-zone',
      'example.org',
      '--healthz-max-consecutive-failures',
      '2',
      '--http-max-connections',
      '64',
    ]);
  });
  after(async () => {
    await hw?.stop();
    await rm(root, { recursive: true, force: true });
  });

  test('not ready before a sync succeeded; unhealthy (503 with the reason) once 2 syncs in a row failed', async () => {
    const port = hw?.metricsPort ?? 0;
    const ready = await httpGet(port, '/readyz');
    assert.equal(ready.status, 503);
    assert.match(ready.body, /^not synchronised yet/);
    // Retries come after 1 s, then 2 s: the second failure is at most ~4 s away.
    const health = await waitForStatus(port, '/healthz', (r) => r.status === 503, 15_000);
    assert.match(health.body, /^\d+ synchronisations in a row failed \(limit --healthz-max-consecutive-failures=2\)$/);
    const metrics = await httpGet(port, '/metrics');
    assert.match(metrics.body, /hostwarden_sync_consecutive_failures [2-9]/);
  });

  test('both turn 200 once a sync succeeds', async () => {
    const port = hw?.metricsPort ?? 0;
    await mkdir(join(root, 'manifests'));
    await writeFile(join(root, 'manifests', 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.10'));
    // The next retry is at most 8 s after the last failure (backoff 1, 2, 4, 8 s).
    assert.deepEqual(await waitForStatus(port, '/readyz', (r) => r.status === 200, 20_000), { status: 200, body: 'ok' });
    assert.deepEqual(await httpGet(port, '/healthz'), { status: 200, body: 'ok' });
  });

  test('2,000 idle connections to the metrics port: it keeps answering and holds a bounded number of descriptors', async () => {
    const port = hw?.metricsPort ?? 0;
    const pid = hw?.child.pid ?? 0;
    const { sockets } = await idleConnections(port, 2000);
    try {
      assert.deepEqual(await httpGet(port, '/healthz'), { status: 200, body: 'ok' });
      assert.equal((await httpGet(port, '/metrics')).status, 200);
      const fds = (await readdir(`/proc/${pid}/fd`)).length;
      // 64 connections, plus the process's own files (DNS sockets, zone files, watches, stdio).
      assert.ok(fds < 64 + 80, `the process holds ${fds} file descriptors`);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

describe('the text log format', () => {
  test('a name with a newline in a manifest cannot start a forged log line', async () => {
    const root = await mkdtemp(join(tmpdir(), 'hw-logfmt-'));
    try {
      await mkdir(join(root, 'manifests'));
      // Neither the object's name nor the DNS name is checked before it is logged as a problem.
      await writeFile(
        join(root, 'manifests', 'forge.yaml'),
        `apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: "forge\\n[12:00:00.001] INFO: forged by the object name"
  namespace: default
spec:
  endpoints:
    - dnsName: "evil.example.org\\n[12:00:00.000] INFO: all records deleted\\u001b[2J"
      recordType: A
      targets: [192.0.2.66]
`,
      );
      const r = await runCli([
        'run',
        '--once',
        '--log-format',
        'text',
        '--manifests-dir',
        join(root, 'manifests'),
        '--embedded-data-dir',
        join(root, 'data'),
        '--embedded-zone',
        'example.org',
        '--dns-listen',
        '',
        '--metrics-address',
        '',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /skipped: evil\.example\.org\\n\[12:00:00\.000\] INFO: all records deleted\\u001b\[2J A/);
      const lines = r.stderr.split('\n');
      assert.deepEqual(
        lines.filter((l) => l.startsWith('[12:00:00.00')),
        [],
        r.stderr,
      );
      assert.ok(!r.stderr.includes('\u001b'), 'a raw ESC reached the terminal');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('source checks and DNS log lines, in a real run', { skip: hasDig ? false : 'dig is not installed' }, () => {
  let root: string;
  let hw: RunningHostwarden | undefined;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'hw-hardening-'));
    const manifests = join(root, 'manifests');
    await mkdir(manifests);
    await writeFile(
      join(manifests, 'loop.yaml'),
      `apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: loop
  namespace: default
spec:
  endpoints:
    - dnsName: loop.example.org
      recordType: CNAME
      targets: [Loop.Example.org.]
    - dnsName: ok.example.org
      recordType: A
      targets: [192.0.2.7]
`,
    );
    await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.10'));
    hw = await startHostwarden(['--manifests-dir', manifests, '--embedded-data-dir', join(root, 'data'), '--embedded-zone', 'example.org']);
    await hw.waitForLog((l) => /changes committed/.test(String(l['msg'])));
  });
  after(async () => {
    await hw?.stop();
    await rm(root, { recursive: true, force: true });
  });

  test('a CNAME to its own name is refused at the source with a reason naming the object; the rest syncs', async () => {
    const problem = hw?.logs.find((l) => /a CNAME cannot point at its own name/.test(String(l['msg'])));
    assert.ok(problem !== undefined, 'no problem logged for the self-referencing CNAME');
    assert.match(String(problem['msg']), /DNSEndpoint\/default\/loop .*loop\.example\.org CNAME/);
    const port = hw?.dnsPort ?? 0;
    assert.equal((await dig(port, ['loop.example.org', 'CNAME'])).status, 'NXDOMAIN');
    assert.deepEqual((await dig(port, ['ok.example.org', 'A'])).answer, ['ok.example.org. 300 IN A 192.0.2.7']);
    assert.deepEqual((await dig(port, ['www.example.org', 'A'])).answer, ['www.example.org. 300 IN A 192.0.2.10']);
  });

  test('explain says why the CNAME is skipped', async () => {
    const r = await runCli([
      'explain',
      'loop.example.org',
      '--manifests-dir',
      join(root, 'manifests'),
      '--provider',
      'inmemory',
      '--domain-filter',
      'example.org',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /loop\.example\.org[\s\S]*a CNAME cannot point at its own name/);
  });

  test('2,000 refused zone transfers in one TCP write log a handful of lines, not 2,000', async () => {
    const port = hw?.dnsPort ?? 0;
    const one = encode({ type: 'query', id: 1, flags: 0, questions: [{ type: 'AXFR', name: 'example.org', class: 'IN' }] });
    const framed = Buffer.alloc(2 + one.length);
    framed.writeUInt16BE(one.length, 0);
    one.copy(framed, 2);
    const burst = Buffer.concat(Array.from({ length: 2000 }, () => framed));
    const received = await new Promise<number>((resolve) => {
      let bytes = 0;
      const s = connect(port, '127.0.0.1', () => s.write(burst));
      s.on('data', (d: Buffer) => (bytes += d.length));
      s.on('error', () => undefined);
      // Whatever the server does with the burst, the test ends within 5 s.
      const timer = setTimeout(() => s.destroy(), 5000);
      s.on('close', () => {
        clearTimeout(timer);
        resolve(bytes);
      });
      s.on('end', () => s.end());
    });
    assert.ok(received > 0, 'no answer to the transfers at all');
    const refused = (): number => hw?.logs.filter((l) => l['msg'] === 'zone transfer refused').length ?? 0;
    assert.ok(refused() >= 1 && refused() <= 10, `${refused()} "zone transfer refused" lines`);
    // The summary of the suppressed ones follows when the 10 s window closes.
    const summary = await hw?.waitForLog((l) => /^zone transfer refused \(\d+ more like it suppressed in \d+s\)$/.test(String(l['msg'])), 15_000);
    assert.ok(Number(summary?.['suppressed']) > 0);
    assert.ok(refused() <= 10);
  });
});

describe('--dns-tsig-key: help, parser and errors agree', () => {
  const secret = Buffer.from('a-secret-that-must-not-leak').toString('base64');

  test('--help documents [algorithm:]name:base64secret, as dig -y takes it', async () => {
    const r = await runCli(['--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--dns-tsig-key VALUE\s+TSIG key \[algorithm:\]name:base64secret/);
  });

  test('the old documented order fails start-up naming the flag and the form, without the secret', async () => {
    const root = await mkdtemp(join(tmpdir(), 'hw-tsig-'));
    try {
      const r = await runCli(
        [
          'run',
          '--manifests-dir',
          root,
          '--embedded-data-dir',
          join(root, 'data'),
          '--embedded-zone',
          'example.org',
          '--dns-listen',
          '127.0.0.1:0',
          '--metrics-address',
          '',
          '--dns-tsig-key',
          `xfr-key:hmac-sha256:${secret}`,
        ],
        { timeoutMs: 60_000 },
      );
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--dns-tsig-key: the algorithm comes first.*write hmac-sha256:xfr-key:<secret>.*\[algorithm:\]name:base64secret/);
      assert.ok(!r.stderr.includes(secret), r.stderr);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('credentials inside URL flags never reach logs or errors', () => {
  test('etcd URLs (coredns provider): the start-up log and the failure show REDACTED', async () => {
    const root = await mkdtemp(join(tmpdir(), 'hw-redact-'));
    try {
      // Nothing listens on port 9: the sync fails at once with a connection error.
      const r = await runCli(
        ['run', '--once', '--provider', 'coredns', '--etcd-urls', 'http://root:s3cret-pw@127.0.0.1:9', '--manifests-dir', root, '--log-format', 'json'],
        { timeoutMs: 60_000 },
      );
      assert.notEqual(r.code, 0, r.stderr);
      assert.match(r.stderr, /"etcd":\["http:\/\/REDACTED@127\.0\.0\.1:9\/"\]/);
      assert.doesNotMatch(r.stderr, /s3cret/);
      const bad = await runCli(['run', '--once', '--provider', 'coredns', '--etcd-urls', 'ftp://root:s3cret-pw@127.0.0.1:9', '--manifests-dir', root]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /etcd URL "ftp:\/\/REDACTED@127\.0\.0\.1:9\/" must start with http/);
      assert.doesNotMatch(bad.stderr, /s3cret/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  test('--pdns-server: the error for a bad URL shows REDACTED', async () => {
    const r = await runCli(['run', '--once', '--provider', 'pdns', '--pdns-api-key', 'k', '--pdns-server', 'http://admin:s3cret-pw@[::1']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--pdns-server "http:\/\/REDACTED@\[::1" is not a URL/);
    assert.doesNotMatch(r.stderr, /s3cret/);
  });
});
