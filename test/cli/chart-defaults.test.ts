/**
 * A Deployment rendered by external-dns's own Helm chart (default values, plus triggerLoopOnEvent
 * and logLevel: warning; test/conformance/external-dns/chart-default-args.json) runs Hostwarden
 * unchanged: against the test API server and the Route53 emulator, with only what the test
 * environment adds (the kubeconfig, the emulator's URL, a loopback metrics port, and AWS
 * credentials in the environment as the chart's `env` would give them), it starts, publishes a
 * Service's record with its ownership TXT, and, being event-driven, a second Service's within the
 * event debounce instead of the one-minute interval.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.ts';
import { isolateAwsSdk } from '../support/aws/provider.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import type { EmulatedZone } from '../support/aws/route53-emulator.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { ObjectInput, TestApiServer } from '../support/kube-apiserver/server.ts';

isolateAwsSdk();

const fixture = JSON.parse(await readFile(new URL('../conformance/external-dns/chart-default-args.json', import.meta.url), 'utf8')) as { args: string[] };

function loadBalancer(name: string, hostname: string, ip: string): ObjectInput {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': hostname } },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    status: { loadBalancer: { ingress: [{ ip }] } },
  };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('external-dns chart defaults (triggerLoopOnEvent, logLevel: warning) with the aws provider', () => {
  let api: TestApiServer;
  let aws: AwsEmulators;
  let dir: string;
  let kubeconfig: string;
  let zone: EmulatedZone;

  before(async () => {
    api = await startTestApiServer();
    aws = await startAwsEmulators();
    dir = await mkdtemp(join(tmpdir(), 'hw-chart-'));
    kubeconfig = await api.writeKubeconfig(dir);
    zone = aws.route53.createZone('example.org');
    api.create(loadBalancer('web', 'web.example.org', '192.0.2.10'));
  });
  after(async () => {
    await api.stop();
    await aws.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('starts, syncs the Service, and syncs a new one on its event', async () => {
    // As the chart's `env` would: the SDK's default chain reads them.
    process.env['AWS_ACCESS_KEY_ID'] = aws.aws.rootIdentity.accessKeyId;
    process.env['AWS_SECRET_ACCESS_KEY'] = aws.aws.rootIdentity.secretAccessKey;
    let stderr = '';
    const handlers: (() => void)[] = [];
    const sink = (collect: boolean): NodeJS.WriteStream =>
      new Writable({
        write(chunk: Buffer, _enc, done) {
          if (collect) stderr += chunk.toString();
          done();
        },
      }) as unknown as NodeJS.WriteStream;
    const environment = ['--kubeconfig', kubeconfig, '--aws-endpoint-url', aws.url, '--metrics-address=127.0.0.1:0'];
    const running = main({
      argv: [...fixture.args, ...environment],
      env: { AWS_EC2_METADATA_DISABLED: 'true', HOME: dir },
      stdout: sink(false),
      stderr: sink(true),
      onSignal: (_signal, handler) => handlers.push(handler),
    });
    let exited: number | undefined;
    void running.then((code) => (exited = code));
    try {
      const a = await until('web.example.org A', () =>
        exited === undefined ? aws.route53.find(zone, 'web.example.org', 'A') : assert.fail(`exited ${exited}: ${stderr}`),
      );
      assert.deepEqual(a.values, ['192.0.2.10']);
      assert.match(
        aws.route53.find(zone, 'a-web.example.org', 'TXT')?.values[0] ?? '',
        /heritage=external-dns,external-dns\/owner=default,external-dns\/resource=service\/default\/web/,
      );

      // The interval is a minute: a record within the test's bound came from the Service's event.
      api.create(loadBalancer('api', 'api.example.org', '192.0.2.11'));
      const b = await until('api.example.org A', () => aws.route53.find(zone, 'api.example.org', 'A'));
      assert.deepEqual(b.values, ['192.0.2.11']);
      // --log-level=warning: nothing at info level was written.
      assert.doesNotMatch(stderr, /hostwarden starting|INFO/);
    } finally {
      for (const stop of handlers.slice(0, 1)) stop();
      const code = await running;
      assert.equal(code, 0, stderr);
    }
  });
});
