/**
 * A throw-away Knot DNS (knotd 3.2) primary for tests and benchmarks: own temp directory (rundir,
 * storage, pidfile and control socket all inside it, so no root-owned paths), 127.0.0.1 only, a
 * free port, stopped by PID. The zone file is the project's master-file serialisation.
 */
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serializeZone } from '../../src/dns/master-file.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { freePort } from './bind.ts';
import { supervise } from './server-process.ts';

const run = promisify(execFile);

export interface PeerServer {
  port: number;
  dir: string;
  /** The server's main process (its CPU time includes its threads). */
  pid: number;
  stop(): Promise<void>;
}

export function knotAvailable(): Promise<boolean> {
  return run('knotd', ['-V']).then(
    () => true,
    () => false,
  );
}

/** Polls with dig until the zone's SOA answers (bounded: 10 s). */
export async function waitForSoa(port: number, origin: string, exited: () => boolean): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  for (let i = 0; i < 200 && Date.now() < deadline && !exited(); i++) {
    const ok = await run('dig', ['+short', '+time=1', '+tries=1', '-p', String(port), '@127.0.0.1', origin, 'SOA']).then(
      (r) => r.stdout.trim() !== '',
      () => false,
    );
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

export async function startKnot(options: { zones: ZoneContent[]; udpWorkers?: number }): Promise<PeerServer> {
  const dir = await mkdtemp(join(tmpdir(), 'hw-knot-'));
  const port = await freePort();
  const zones: string[] = [];
  for (const z of options.zones) {
    await writeFile(join(dir, `${z.origin}.zone`), serializeZone(z));
    zones.push(`  - domain: ${z.origin}\n    file: "${join(dir, `${z.origin}.zone`)}"`);
  }
  const conf = `server:
    rundir: "${dir}"
    pidfile: "${dir}/knot.pid"
    listen: 127.0.0.1@${port}
    udp-workers: ${options.udpWorkers ?? 2}
    tcp-workers: 1
    background-workers: 1
control:
    listen: "${dir}/knot.sock"
database:
    storage: "${dir}"
log:
  - target: stderr
    any: warning
template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
zone:
${zones.join('\n')}
`;
  await writeFile(join(dir, 'knot.conf'), conf);
  const child = spawn('knotd', ['-c', join(dir, 'knot.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { log, stop } = supervise(child, dir);
  if (await waitForSoa(port, options.zones[0]?.origin ?? '.', () => child.exitCode !== null)) return { port, dir, pid: child.pid ?? 0, stop };
  await stop();
  throw new Error(`knotd did not start:\n${log()}`);
}
