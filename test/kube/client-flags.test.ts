/**
 * external-dns's Kubernetes client flags against the test API server: --kube-api-qps and
 * --kube-api-burst limit the client as client-go's token bucket does, --server replaces the
 * kubeconfig's server (or alone is enough).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandArgs } from '../../src/cli/commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { resolveConfig } from '../../src/config/config.ts';
import type { Config } from '../../src/config/config.ts';
import { ConfigError } from '../../src/errors.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { kubeClientFromConfig } from '../../src/kube/flags.ts';
import { silentLogger } from '../../src/log.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

const config = (argv: string[], env: Record<string, string> = {}): Config =>
  resolveConfig(parseCommandArgs('run', argv, env), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });

describe('Kubernetes client flags', () => {
  let api: TestApiServer;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    api = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'hw-kubeflags-'));
    kubeconfig = await api.writeKubeconfig(dir);
  });
  after(async () => {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const list = (cfg: Config, rateLimited: boolean) => kubeClientFromConfig(cfg, { logger: silentLogger(), env: {}, rateLimited });

  test('--kube-api-qps/--kube-api-burst: the burst goes at once, the rest at the rate (13 requests at 20/s after 3: at least 0.5 s)', async () => {
    const client = list(config(['--kubeconfig', kubeconfig, '--kube-api-qps=20', '--kube-api-burst', '3']), true);
    const started = performance.now();
    for (let i = 0; i < 13; i++) await client.request('GET', '/api/v1/namespaces/default/services');
    const elapsed = performance.now() - started;
    client.close();
    assert.ok(elapsed >= 480, `13 requests took ${elapsed.toFixed(0)} ms; the limit allows no less than 500 ms`);
  });

  test('the controllers’ clients (rateLimited false) keep no client-side limit; 0 or less is refused as external-dns refuses it', async () => {
    const client = list(config(['--kubeconfig', kubeconfig, '--kube-api-qps=1', '--kube-api-burst=1']), false);
    const started = performance.now();
    for (let i = 0; i < 4; i++) await client.request('GET', '/api/v1/namespaces/default/services');
    client.close();
    // Limited, these four would take at least 3 s.
    assert.ok(performance.now() - started < 3000);
    assert.throws(
      () => list(config(['--kubeconfig', kubeconfig, '--kube-api-qps=0']), true),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.message, '--kube-api-qps must be greater than 0');
        return true;
      },
    );
    assert.throws(() => list(config(['--kubeconfig', kubeconfig, '--kube-api-burst=-1']), true), /--kube-api-burst must be greater than 0/);
  });

  test("--server replaces the kubeconfig cluster's server and keeps its credentials", async () => {
    const wrong = join(dir, 'wrong-server');
    await writeFile(wrong, (await readFile(kubeconfig, 'utf8')).replace(api.url, 'http://127.0.0.1:9'));
    const broken = list(config(['--kubeconfig', wrong]), true);
    await assert.rejects(broken.request('GET', '/api/v1/namespaces/default/services'), /ECONNREFUSED|Unreachable/);
    broken.close();
    const fixed = list(config(['--kubeconfig', wrong, '--server', api.url]), true);
    const answer = await fixed.request<{ kind: string }>('GET', '/api/v1/namespaces/default/services');
    fixed.close();
    assert.equal(answer.kind, 'ServiceList');
  });

  test('--server alone (no kubeconfig, not in a cluster) connects without credentials; a value that is not a URL names the flag', async () => {
    const alone = list(config([], { EXTERNAL_DNS_SERVER: api.url }), true);
    const answer = await alone.request<{ kind: string }>('GET', '/api/v1/namespaces/default/services');
    alone.close();
    assert.equal(answer.kind, 'ServiceList');
    assert.throws(() => list(config(['--server', 'api.example:6443']), true), /--server "api.example:6443" is not a URL such as https:\/\/host:6443/);
  });

  test('a failed configuration load is not kept: the next request loads again', async () => {
    const { KubeConfig } = await import('@kubernetes/client-node');
    let loads = 0;
    const client = new KubeClient({
      logger: silentLogger(),
      config: async () => {
        loads++;
        if (loads === 1) throw new Error('kubeconfig is being rewritten');
        const kc = new KubeConfig();
        kc.loadFromFile(kubeconfig);
        return kc;
      },
    });
    await assert.rejects(client.request('GET', '/api/v1/namespaces/default/services'), /being rewritten/);
    const answer = await client.request<{ kind: string }>('GET', '/api/v1/namespaces/default/services');
    await client.request('GET', '/api/v1/namespaces/default/services');
    client.close();
    assert.equal(answer.kind, 'ServiceList');
    assert.equal(loads, 2, 'loaded again once after the failure, then kept');
  });
});
