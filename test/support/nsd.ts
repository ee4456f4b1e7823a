/**
 * A throw-away NSD 4 primary for tests and benchmarks: own temp directory (pidfile, xfrd state,
 * zone list and log inside it; no chroot, `username: ""`, no database file, so the zone is read
 * from its master file at start and nothing needs compiling), 127.0.0.1 only, a free port, stopped
 * by PID. Debian builds NSD with --enable-ratelimit, whose default limit (200 qps per source)
 * would drop a benchmark's queries: `rateLimit: false` (the default here) sets rrl-ratelimit: 0.
 */
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serializeZone } from '../../src/dns/master-file.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { freePort } from './bind.ts';
import type { PeerServer } from './knot.ts';
import { waitForSoa } from './knot.ts';
import { supervise } from './server-process.ts';

const run = promisify(execFile);

export function nsdAvailable(): Promise<boolean> {
  return run('nsd', ['-v']).then(
    () => true,
    () => false,
  );
}

/** NSD's configure line (from `nsd -v`), e.g. to tell whether rate limiting is compiled in. */
export async function nsdBuild(): Promise<{ version: string; ratelimit: boolean; recvmmsg: boolean }> {
  const r = await run('nsd', ['-v']).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
  const text = `${r.stdout}${r.stderr}`;
  return {
    version: /NSD version (\S+)/.exec(text)?.[1] ?? '?',
    ratelimit: text.includes('--enable-ratelimit'),
    recvmmsg: !text.includes('--disable-recvmmsg'),
  };
}

export interface NsdOptions {
  zones: ZoneContent[];
  /** server-count (default 2). */
  serverCount?: number;
  /** Keep NSD's response rate limiting (off by default). */
  rateLimit?: boolean;
  /** minimal-responses: no NS RRset in the authority section of positive answers (as Knot always, and BIND for RD queries). */
  minimalResponses?: boolean;
}

export async function startNsd(options: NsdOptions): Promise<PeerServer> {
  const dir = await mkdtemp(join(tmpdir(), 'hw-nsd-'));
  const port = await freePort();
  const zones: string[] = [];
  for (const z of options.zones) {
    await writeFile(join(dir, `${z.origin}.zone`), serializeZone(z));
    zones.push(`zone:\n  name: "${z.origin}"\n  zonefile: "${join(dir, `${z.origin}.zone`)}"`);
  }
  const rrl = options.rateLimit === true ? '' : '  rrl-ratelimit: 0\n  rrl-whitelist-ratelimit: 0\n';
  const conf = `server:
  server-count: ${options.serverCount ?? 2}
  reuseport: yes
  ip-address: 127.0.0.1@${port}
  do-ip6: no
  username: ""
  chroot: ""
  zonesdir: "${dir}"
  database: ""
  pidfile: "${dir}/nsd.pid"
  xfrdfile: "${dir}/xfrd.state"
  zonelistfile: "${dir}/zone.list"
  xfrdir: "${dir}"
  logfile: "${dir}/nsd.log"
  verbosity: 0
  minimal-responses: ${options.minimalResponses === true ? 'yes' : 'no'}
${rrl}remote-control:
  control-enable: no
${zones.join('\n')}
`;
  await writeFile(join(dir, 'nsd.conf'), conf);
  await run('nsd-checkconf', [join(dir, 'nsd.conf')]).catch((err: { stderr?: string }) => {
    throw new Error(`nsd-checkconf rejected ${join(dir, 'nsd.conf')}: ${err.stderr ?? String(err)}`);
  });
  const child = spawn('nsd', ['-d', '-c', join(dir, 'nsd.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { log, stop } = supervise(child, dir);
  if (await waitForSoa(port, options.zones[0]?.origin ?? '.', () => child.exitCode !== null)) return { port, dir, pid: child.pid ?? 0, stop };
  await stop();
  throw new Error(`nsd did not start:\n${log()}`);
}
