/**
 * A throw-away etcd member for tests: own temp data directory, client and peer ports free on
 * 127.0.0.1, stopped by PID. Configuration follows ../shared/notes/test-servers.md.
 */
import { supervise } from './server-process.ts';
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './bind.ts';

const run = promisify(execFile);

export interface EtcdServer {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

export function etcdAvailable(): Promise<boolean> {
  return run('etcd', ['--version']).then(
    () => true,
    () => false,
  );
}

function ready(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(`${url}/version`, { timeout: 500 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

export async function startEtcd(): Promise<EtcdServer> {
  const dir = await mkdtemp(join(tmpdir(), 'hw-etcd-'));
  const port = await freePort();
  let peer = await freePort();
  for (let i = 0; i < 5 && peer === port; i++) peer = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    'etcd',
    [
      '--name',
      'hw-test',
      '--data-dir',
      join(dir, 'etcd'),
      '--listen-client-urls',
      url,
      '--advertise-client-urls',
      url,
      '--listen-peer-urls',
      `http://127.0.0.1:${peer}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${peer}`,
      '--initial-cluster',
      `hw-test=http://127.0.0.1:${peer}`,
      '--log-level',
      'error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const { log, stop } = supervise(child, dir);
  const deadline = Date.now() + 15_000;
  for (let i = 0; i < 300 && Date.now() < deadline; i++) {
    if (child.exitCode !== null) break;
    if (await ready(url)) return { url, dir, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`etcd did not start:\n${log()}`);
}
