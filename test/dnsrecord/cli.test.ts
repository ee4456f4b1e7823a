/**
 * `hostwarden dnsrecord-controller` as a process: embedded type with its DNS server, leader
 * election, the webhook with a self-signed certificate and /metrics, all on port 0; a DNSRecord
 * made in the test API server answers in DNS; SIGTERM stops it cleanly. Bad flags name the flag.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, REPO_ROOT, runCli } from '../support/cli.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { opensslUnavailable } from '../support/tls.ts';
import { NS, create, dnsRecord, settled, startEnv, waitFor } from './harness.ts';
import type { Env } from './harness.ts';

const skip = !(await digAvailable()) ? 'dig is not installed' : ((await opensslUnavailable()) ?? false);

describe('hostwarden dnsrecord-controller', { skip }, () => {
  let env: Env;
  let dir: string;
  let child: ChildProcess;
  const logs: Record<string, unknown>[] = [];

  const logged = (msg: string): Promise<Record<string, unknown>> => waitFor(`log "${msg}"`, () => Promise.resolve(logs.find((l) => l['msg'] === msg)), 20_000);

  before(async () => {
    env = await startEnv();
    dir = await mkdtemp(join(tmpdir(), 'hw-dnsrecord-cli-'));
    const kubeconfig = await env.api.writeKubeconfig(dir);
    child = spawn(
      process.execPath,
      [
        BIN,
        'dnsrecord-controller',
        '--log-format',
        'json',
        '--kubeconfig',
        kubeconfig,
        '--dnsrecord-types',
        'embedded',
        '--embedded-zone',
        'example.test',
        '--embedded-data-dir',
        join(dir, 'data'),
        '--dns-listen',
        '127.0.0.1:0',
        '--metrics-address',
        '127.0.0.1:0',
        '--listen',
        '127.0.0.1:0',
        '--tls-self-signed',
        '--leader-elect',
        '--leader-election-namespace',
        NS,
      ],
      { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let buffer = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          logs.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          logs.push({ msg: line });
        }
      }
    });
  });

  after(async () => {
    if (child !== undefined && child.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a DNSRecord answers from the built-in DNS server; metrics, webhook and the Lease are there; SIGTERM exits 0', async () => {
    const dnsLine = await logged('DNS server listening');
    const dnsPort = Number(String((dnsLine['addresses'] as string[])[0]).split(':')[1]);
    const metricsLine = await logged('serving /metrics and /healthz');
    await logged('DNSRecord validating webhook listening (HTTPS)');

    await create(env.client, dnsRecord('api', { type: 'embedded', name: 'api.example.test', values: ['192.0.2.77'] }));
    await settled(env.client, 'api', 'Create', 'Succeeded');
    assert.deepEqual(
      (await dig(dnsPort, ['api.example.test', 'A', '+norec'])).answer.map((l) => l.split(' ').slice(3).join(' ')),
      ['A 192.0.2.77'],
    );

    const lease = await env.client.request<{ spec?: { holderIdentity?: string } }>(
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/hostwarden-dnsrecord-controller`,
    );
    assert.ok((lease.spec?.holderIdentity ?? '') !== '');
    // No resync by default (--dnsrecord-sync-period 0s, as Gardener): a plain success. The counter
    // moves when the reconcile returns, which may be just after the record answers.
    const reconciled = /hostwarden_dnsrecord_reconciles_total\{outcome="success"\} [1-9]/;
    let metrics = '';
    for (let i = 0; i < 100 && !reconciled.test(metrics); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      metrics = await (await fetch(`http://${String(metricsLine['address'])}/metrics`)).text();
    }
    assert.match(metrics, reconciled);

    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0);
  });

  test('bad flags stop start-up with a message naming the flag', async () => {
    const r = await runCli(['dnsrecord-controller', '--dnsrecord-types', 'route53', '--kubeconfig', join(dir, 'none')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--dnsrecord-types/);
    const e = await runCli(['dnsrecord-controller', '--dnsrecord-types', 'embedded', '--kubeconfig', join(dir, 'none')]);
    assert.match(e.stderr, /--embedded-zone/);
  });
});
