/**
 * A start-up smoke on whichever Node.js runs the tests (.ci/run runs this file on every release of
 * the runtime matrix): `npm start`'s command answers DNS, every long-running command starts and
 * stops on SIGTERM with exit code 0, and the native UDP addon compiles with this release's own
 * headers and loads in it (N-API).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadNativeUdp } from '../../src/dns/server/native/udp-native.ts';
import { BIN, REPO_ROOT } from '../support/cli.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

const run = promisify(execFile);
type LogLine = Record<string, unknown>;

/** Starts `hostwarden <args>` with JSON logs, waits for `ready`, sends SIGTERM, and returns the exit code. */
async function startAndStop(args: string[], ready: (l: LogLine) => boolean): Promise<{ code: number | null; logs: LogLine[] }> {
  const child = spawn(process.execPath, [BIN, ...args, '--log-format', 'json'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const logs: LogLine[] = [];
  let text = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hostwarden ${args[0]} not ready in 30 s:\n${text}`)), 30_000);
    child.stderr.on('data', (d: Buffer) => {
      text += d.toString();
      const lines = text.split('\n');
      for (const line of lines.slice(logs.length, -1)) logs.push(line.startsWith('{') ? (JSON.parse(line) as LogLine) : { msg: line });
      if (logs.some(ready)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`hostwarden ${args[0]} exited with ${String(code)} before it was ready:\n${text}`)));
  });
  try {
    await started;
  } finally {
    child.kill('SIGTERM');
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, logs };
}

const noDig = (await digAvailable()) ? false : 'dig is not installed';
const msg = (m: string) => (l: LogLine) => typeof l['msg'] === 'string' && l['msg'].includes(m);

describe(`runtime smoke on Node.js ${process.version}`, () => {
  let dir = '';
  let api: TestApiServer;
  let kubeconfig = '';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hostwarden-smoke-'));
    api = await startTestApiServer({ namespaces: ['hive'] });
    kubeconfig = await api.writeKubeconfig(dir);
  });

  after(async () => {
    await api?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('npm start: the embedded server answers www.example.org from ./examples', { skip: noDig }, async () => {
    const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    const startArgs = pkg.scripts.start.split(/\s+/).slice(3);
    assert.equal(pkg.scripts.start.split(/\s+/).slice(0, 3).join(' '), 'node bin/hostwarden run');
    const hw = await startHostwarden([...startArgs, '--embedded-data-dir', join(dir, 'data')]);
    try {
      await hw.waitForLog(msg('changes committed'), 30_000).catch(() => undefined);
      let answer: string[] = [];
      for (let i = 0; i < 50 && answer.length === 0; i++) {
        answer = (await dig(hw.dnsPort, ['www.example.org', 'A'])).answer;
        if (answer.length === 0) await new Promise((r) => setTimeout(r, 200));
      }
      assert.deepEqual(
        answer.map((a) => a.split(' ').pop()),
        ['192.0.2.10'],
      );
    } finally {
      assert.equal(await hw.stop(), 0);
    }
  });

  const local = ['--metrics-address', '127.0.0.1:0'];
  const commands: [string, string[], string][] = [
    ['webhook-server', ['--provider', 'inmemory', '--listen', '127.0.0.1:0'], 'webhook server listening'],
    ['admission-webhook', ['--tls-self-signed', '--listen', '127.0.0.1:0', '--allowed-cidrs', '192.0.2.0/24'], 'admission webhook listening'],
    ['dnsrecord-controller', ['--dnsrecord-types', 'aws-route53', ...local], 'serving /metrics and /healthz'],
    ['operator', ['--tls-self-signed', '--webhook-listen', '127.0.0.1:0', ...local], 'operator started'],
    ['privatelink-controller', ['--hive-namespace', 'hive', ...local], 'PrivateLink controller started'],
  ];
  for (const [command, args, ready] of commands) {
    test(`${command} starts and exits 0 on SIGTERM`, async () => {
      const kube = command === 'webhook-server' || command === 'admission-webhook' ? [] : ['--kubeconfig', kubeconfig];
      const { code, logs } = await startAndStop([command, ...args, ...kube], msg(ready));
      assert.equal(code, 0, logs.map((l) => JSON.stringify(l)).join('\n'));
    });
  }

  test("the native UDP addon compiles with this release's headers and loads in it", { skip: process.platform === 'linux' ? false : 'Linux only' }, async () => {
    const out = join(dir, 'native', 'hostwarden_udp.node');
    const built = await run(process.execPath, ['--import', 'tsx', 'bin/build-native.ts', '--out', out], {
      cwd: REPO_ROOT,
      env: { ...process.env, HOSTWARDEN_NATIVE_REQUIRED: process.env['CI'] === 'true' ? '1' : '0' },
    });
    if (!built.stdout.startsWith('built ')) return assert.ok(process.env['CI'] !== 'true', built.stdout);
    const addon = loadNativeUdp(out);
    assert.ok(addon !== undefined);
    assert.ok(addon.batch > 0);
  });
});
