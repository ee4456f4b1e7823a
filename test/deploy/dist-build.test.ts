/**
 * The compiled program, as the container image and the benchmarks run it: `bin/build.ts` into a
 * scratch directory of the repository (never dist/, which bin/hostwarden would start preferring
 * for the other tests), then `run --once` with the Kubernetes sources against the test API server.
 * This is the only test of the esbuild bundle of client-node's KubeConfig: the other tests run the
 * sources through tsx.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../support/cli.ts';
import { loadBalancerService } from '../support/manifests.ts';
import { udpExchange } from '../support/udp.ts';
import { aQuery } from '../support/udp-prober.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

const run = promisify(execFile);

describe('the compiled program (npm run build)', () => {
  let api: TestApiServer;
  let scratch: string;
  let out: string;
  let dir: string;

  before(async () => {
    await mkdir(join(REPO_ROOT, '.bench-tmp'), { recursive: true });
    scratch = await mkdtemp(join(REPO_ROOT, '.bench-tmp', 'dist-test-'));
    out = join(scratch, 'dist');
    await run(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bin/build.ts'), '--out', out], { cwd: REPO_ROOT, timeout: 240_000 });
    api = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'hostwarden-dist-'));
    api.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': 'web.example.org' } },
      spec: { type: 'LoadBalancer' },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.80' }] } },
    });
    api.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'shop', namespace: 'default' },
      spec: { rules: [{ host: 'shop.example.org' }] },
      status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } },
    });
  });

  after(async () => {
    await api?.stop();
    await rm(dir, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  });

  test('KubeConfig is a self-contained bundle: no import of the client-node package at run time', async () => {
    const bundle = await readFile(join(out, 'kube', 'kubeconfig-module.js'), 'utf8');
    assert.doesNotMatch(bundle, /from\s*["']@kubernetes\/client-node/);
    assert.match(bundle, /export\s*\{[^}]*\bKubeConfig\b/);
    // One byte per character in V8's copy of the source (see bin/build.ts).
    assert.ok(
      [...bundle].every((c) => c.charCodeAt(0) < 128),
      'the bundle has non-ASCII characters',
    );
    assert.ok((await readdir(out)).includes('.build.json'));
  });

  test("the web console's page ships beside console/serve.js (tsc copies no HTML, JS or CSS)", async () => {
    for (const file of ['index.html', 'app.js', 'style.css']) {
      assert.equal(
        await readFile(join(out, 'console', 'assets', file), 'utf8'),
        await readFile(join(REPO_ROOT, 'src', 'console', 'assets', file), 'utf8'),
        file,
      );
    }
  });

  test('run --once with the service and ingress sources reads the cluster through the bundle and plans both records', async () => {
    const kubeconfig = await api.writeKubeconfig(dir);
    const args = [
      join(out, 'cli', 'bin.js'),
      'run',
      '--once',
      '--dry-run',
      '--source',
      'service',
      '--source',
      'ingress',
      '--kubeconfig',
      kubeconfig,
      '--provider',
      'inmemory',
      '--domain-filter',
      'example.org',
      '--txt-owner-id',
      'dist',
      '--log-format',
      'json',
      '--metrics-address',
      '',
      '--dns-listen',
      '',
    ];
    const r = await run(process.execPath, args, { cwd: dir, timeout: 60_000 }).catch((err: { code?: number; stderr?: string }) =>
      assert.fail(`exit ${err.code}: ${err.stderr}`),
    );
    const planned = r.stderr
      .split('\n')
      .filter((l) => l.includes('planned changes'))
      .map((l) => JSON.parse(l) as { create?: number; created?: string[] });
    assert.equal(planned.length, 1, r.stderr);
    assert.equal(planned[0]?.create, 2, r.stderr);
    assert.match(r.stderr, /web\.example\.org/);
    assert.match(r.stderr, /shop\.example\.org/);
  });

  test('the DNS thread starts from the compiled thread-main.js and answers', { timeout: 120_000 }, async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests, { recursive: true });
    await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.9'));
    const child = spawn(
      process.execPath,
      [
        join(out, 'cli', 'bin.js'),
        'run',
        '--manifests-dir',
        manifests,
        '--embedded-data-dir',
        join(dir, 'data'),
        '--embedded-zone',
        'example.org',
        '--dns-listen',
        '127.0.0.1:0',
        '--metrics-address',
        '',
        '--log-format',
        'json',
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    try {
      const lines: Record<string, unknown>[] = [];
      let text = '';
      const committed = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no commit within 60 s:\n${text}`)), 60_000);
        child.stderr.on('data', (d: Buffer) => {
          text += d.toString();
          for (const l of text.split('\n').slice(lines.length, -1)) lines.push(JSON.parse(l) as Record<string, unknown>);
          if (lines.some((l) => l['msg'] === 'changes committed to zone files')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      await committed;
      const listening = lines.find((l) => l['msg'] === 'DNS server listening');
      assert.equal(listening?.['answeredOn'], 'thread');
      const port = Number(String((listening?.['addresses'] as string[])[0]).split(':')[1]);
      const query = aQuery(5, 'www.example.org');
      const reply = await udpExchange(port, query);
      // The question is echoed; then the answer's owner pointer, type, class, TTL and length (12 bytes).
      assert.deepEqual([...(reply ?? Buffer.alloc(0)).subarray(query.length + 12, query.length + 16)], [192, 0, 2, 9]);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
