/**
 * One process per --embedded-data-dir, against the real bin/hostwarden: a second `run` (or a
 * dnsrecord-controller) on a directory in use stops at start-up with one line naming the
 * directory and the holder's pid and touches nothing; `plan` still reads it; after kill -9 of the
 * holder a new instance starts at once.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { loadBalancerService } from '../support/manifests.ts';

const skip = !(await digAvailable()) && 'dig is not installed (apt-get install bind9-dnsutils)';

describe('one process per embedded data directory', { skip }, () => {
  let root: string;
  let data: string;
  let first: RunningHostwarden | undefined;
  let second: RunningHostwarden | undefined;
  let api: TestApiServer | undefined;
  const args = (manifests: string, owner: string): string[] => [
    '--manifests-dir',
    manifests,
    '--embedded-data-dir',
    data,
    '--embedded-zone',
    'example.org',
    '--txt-owner-id',
    owner,
  ];
  const refusal = (pid: number | undefined): RegExp =>
    new RegExp(
      `^hostwarden: --embedded-data-dir ${data} is locked by Hostwarden process ${pid}: two processes must not share a data directory; stop it or choose another directory\\n$`,
    );

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'hw-lock-'));
    data = join(root, 'data');
    for (const [dir, ip] of [
      ['a', '192.0.2.1'],
      ['b', '192.0.2.2'],
    ] as const) {
      await mkdir(join(root, dir));
      await writeFile(join(root, dir, 'web.yaml'), loadBalancerService('web', `${dir}.example.org`, ip));
    }
    first = await startHostwarden(args(join(root, 'a'), 'a'));
    await first.waitForLog((l) => l['msg'] === 'changes committed to zone files');
  });
  after(async () => {
    await first?.stop('SIGKILL');
    await second?.stop('SIGKILL');
    await api?.stop();
    await rm(root, { recursive: true, force: true });
  });

  test('a second run on the directory exits 2 with one line naming it and the holder, and removes nothing', async () => {
    // A write of the first instance in progress: the second must not take it for a crash's leftover.
    const inFlight = join(data, `.example.org.zone.tmp-${first?.child.pid}-0123456789ab`);
    await writeFile(inFlight, 'half a zone');
    // --log-level error: the refusal must be the only thing said, apart from warnings that have
    // nothing to do with it (Node 20 is end-of-life, which every command warns about at start).
    const r = await runCli(['run', ...args(join(root, 'b'), 'b'), '--dns-listen', '127.0.0.1:0', '--metrics-address', '', '--log-level', 'error']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, refusal(first?.child.pid));
    assert.equal(await readFile(inFlight, 'utf8'), 'half a zone');
    await rm(inFlight);
    assert.doesNotMatch(await readFile(join(data, 'example.org.zone'), 'utf8'), /b\.example\.org/);
    assert.deepEqual((await dig(first?.dnsPort ?? 0, ['a.example.org', 'A', '+short'])).raw.trim(), '192.0.2.1');
  });

  test('a dnsrecord-controller serving embedded records on the directory is refused the same way', async () => {
    api = await startTestApiServer();
    const kubeconfig = await api.writeKubeconfig(root);
    const r = await runCli([
      'dnsrecord-controller',
      '--kubeconfig',
      kubeconfig,
      '--dnsrecord-types',
      'embedded',
      '--embedded-zone',
      'example.org',
      '--embedded-data-dir',
      data,
      '--dns-listen',
      '127.0.0.1:0',
      '--metrics-address',
      '',
    ]);
    assert.equal(r.code, 2);
    // It logs its start first (flags are checked before anything starts); the refusal ends the output.
    const lines = r.stderr.trimEnd().split('\n');
    assert.match(`${lines.at(-1)}\n`, refusal(first?.child.pid));
  });

  test('plan reads the directory in use without locking or changing it', async () => {
    const r = await runCli(['plan', ...args(join(root, 'b'), 'a'), '--output', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /b\.example\.org/);
    assert.match(r.stdout, /a\.example\.org/, "the running instance's record is read (and planned away)");
  });

  test('after kill -9 of the holder a new instance starts at once and serves what it acknowledged', async () => {
    await first?.stop('SIGKILL');
    first = undefined;
    second = await startHostwarden(args(join(root, 'b'), 'a'));
    await second.waitForLog((l) => l['msg'] === 'changes committed to zone files');
    assert.equal((await dig(second.dnsPort, ['b.example.org', 'A', '+short'])).raw.trim(), '192.0.2.2');
    assert.equal(await readFile(join(data, 'hostwarden.pid'), 'utf8'), `${second.child.pid}\n`);
  });
});
