/**
 * The servers `npm run bench:dns` compares, each in its own process on 127.0.0.1 with a free port
 * and the same zone (benchZone(), written as a master file for BIND, Knot and NSD).
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { namedAvailable, startBind } from '../../test/support/bind.ts';
import { knotAvailable, startKnot } from '../../test/support/knot.ts';
import { nsdAvailable, nsdBuild, startNsd } from '../../test/support/nsd.ts';
import { ORIGIN, benchZone } from './bench-zone.ts';

const run = promisify(execFile);

export interface BenchServer {
  key: string;
  name: string;
  port: number;
  /** The process whose CPU time (with its descendants') is the server's. */
  pid: number;
  stop(): Promise<void>;
}

export const SERVER_KEYS = ['bind', 'knot', 'nsd', 'hw-thread', 'hw-thread-nopc', 'hw-inline', 'hw-workers', 'hw-dgram'] as const;
export type ServerKey = (typeof SERVER_KEYS)[number];

/** Starts serve.ts and waits for its port. */
async function startHostwarden(
  engine: 'native' | 'dgram',
  workers: number | 'inline',
  packetCache?: number,
): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const script = fileURLToPath(new URL('./serve.ts', import.meta.url));
  const args = ['--import', 'tsx', script, engine, String(workers), ...(packetCache === undefined ? [] : [String(packetCache)])];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('serve.ts did not start in 30 s')), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) {
        clearTimeout(timer);
        resolve(buf.slice(0, buf.indexOf('\n')));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve.ts exited with ${code}`));
    });
  });
  const { port, engine: used } = JSON.parse(first) as { port: number; engine: string };
  if (used !== engine) {
    await stopChild(child);
    throw new Error(`asked for the ${engine} engine, got ${used} (npm run build:native?)`);
  }
  const stop = (): Promise<void> => stopChild(child);
  if (!(await answering(port))) {
    await stop();
    throw new Error(`serve.ts (${engine}, ${workers}) listened on ${port} but did not answer host-0.${ORIGIN} within 10 s`);
  }
  return { port, pid: child.pid ?? 0, stop };
}

/**
 * Waits until 20 queries in a row (each dig from a new source port, so with workers they spread
 * over the workers' sockets) are answered NOERROR: a server that answers before its zone is
 * loaded must not reach the answer check (Hostwarden's workers once did, for ~0.2 s).
 */
async function answering(port: number): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  let inRow = 0;
  for (let i = 0; i < 500 && Date.now() < deadline && inRow < 20; i++) {
    const ok = await run('dig', ['+time=1', '+tries=1', '+noall', '+comments', '-p', String(port), '@127.0.0.1', `host-0.${ORIGIN}`, 'A']).then(
      (r) => r.stdout.includes('status: NOERROR'),
      () => false,
    );
    inRow = ok ? inRow + 1 : 0;
    if (!ok) await new Promise((r) => setTimeout(r, 50));
  }
  return inRow >= 20;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function required(available: Promise<boolean>, what: string): Promise<void> {
  if (!(await available)) throw new Error(`${what} is not installed (--servers leaves it out)`);
}

/** Starts one server; `notes` collects lines the benchmark prints about the peers' builds. */
export async function startServer(key: ServerKey, notes: string[]): Promise<BenchServer> {
  const zones = [benchZone()];
  switch (key) {
    case 'bind': {
      await required(namedAvailable(), 'named (bind9)');
      return { key, name: 'BIND 9 (-n 2)', ...(await startBind({ zones, threads: 2 })) };
    }
    case 'knot': {
      await required(knotAvailable(), 'knotd (knot)');
      notes.push('Knot: udp-workers 2, tcp-workers 1, background-workers 1, zone from the master file, journal off');
      return { key, name: 'Knot (2 UDP workers)', ...(await startKnot({ zones, udpWorkers: 2 })) };
    }
    case 'nsd': {
      await required(nsdAvailable(), 'nsd');
      const build = await nsdBuild();
      notes.push(
        `NSD ${build.version}: server-count 2, reuseport, minimal-responses (the others leave the NS RRset out of positive answers to dnsperf's RD queries), no database file; rate limiting ${build.ratelimit ? 'compiled in and turned off (rrl-ratelimit: 0, rrl-whitelist-ratelimit: 0)' : 'not compiled in'}; recvmmsg ${build.recvmmsg ? 'on' : 'off (--disable-recvmmsg)'}`,
      );
      return { key, name: 'NSD (server-count 2)', ...(await startNsd({ zones, serverCount: 2, minimalResponses: true })) };
    }
    case 'hw-thread':
      return { key, name: 'Hostwarden native (DNS thread)', ...(await startHostwarden('native', 0)) };
    case 'hw-thread-nopc':
      return { key, name: 'Hostwarden native (DNS thread, packet cache off)', ...(await startHostwarden('native', 0, 0)) };
    case 'hw-inline':
      return { key, name: 'Hostwarden native (inline)', ...(await startHostwarden('native', 'inline')) };
    case 'hw-workers':
      return { key, name: 'Hostwarden native (2 workers)', ...(await startHostwarden('native', 2)) };
    case 'hw-dgram':
      return { key, name: 'Hostwarden dgram (DNS thread)', ...(await startHostwarden('dgram', 0)) };
  }
}
