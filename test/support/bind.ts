/**
 * A throw-away BIND 9 primary for tests and benchmarks: own temp directory, 127.0.0.1 only, a free
 * port, stopped by PID. Configuration follows ../shared/notes/test-servers.md.
 */
import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { supervise } from './server-process.ts';
import { createSocket } from 'node:dgram';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serializeZone } from '../../src/dns/master-file.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';

const run = promisify(execFile);

export interface BindServer {
  port: number;
  dir: string;
  /** named's process (its CPU time includes its threads). */
  pid: number;
  stop(): Promise<void>;
}

export interface BindOptions {
  zones: ZoneContent[];
  /** TSIG key allowed to transfer: { name, algorithm, secret (base64) }. */
  tsigKey?: { name: string; algorithm: string; secret: string };
  /** Extra statements for the options block. */
  extraOptions?: string;
  /** Extra top-level statements (a `tls` block for DNS over TLS listeners). */
  extraConfig?: string;
  /** Threads (-n). */
  threads?: number;
}

export function namedAvailable(): Promise<boolean> {
  return run('named', ['-v']).then(
    () => true,
    () => false,
  );
}

/** A port free for both UDP and TCP on 127.0.0.1 (released before returning). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const udp = createSocket('udp4');
    const port = await new Promise<number>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind({ address: '127.0.0.1', port: 0, exclusive: true }, () => resolve(udp.address().port));
    });
    const ok = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen({ host: '127.0.0.1', port, exclusive: true }, () => s.close(() => resolve(true)));
    });
    await new Promise<void>((r) => udp.close(() => r()));
    if (ok) return port;
  }
  throw new Error('no free port');
}

export async function startBind(options: BindOptions): Promise<BindServer> {
  const dir = await mkdtemp(join(tmpdir(), 'hw-bind-'));
  const port = await freePort();
  const key = options.tsigKey;
  const keyConf = key === undefined ? '' : `key "${key.name}" { algorithm ${key.algorithm}; secret "${key.secret}"; };\n`;
  const zones: string[] = [];
  for (const z of options.zones) {
    const file = join(dir, `${z.origin}.db`);
    await writeFile(file, serializeZone(z));
    zones.push(`zone "${z.origin}" { type primary; file "${file}"; };`);
  }
  const conf = `${keyConf}${options.extraConfig ?? ''}
options {
  directory "${dir}"; pid-file "${dir}/named.pid"; session-keyfile "${dir}/session.key"; managed-keys-directory "${dir}";
  listen-on port ${port} { 127.0.0.1; }; listen-on-v6 { none; };
  recursion no; dnssec-validation no; notify no;
  allow-transfer { ${key === undefined ? '127.0.0.1' : `key "${key.name}"`}; };
  ${options.extraOptions ?? ''}
};
controls { };
${zones.join('\n')}
`;
  await writeFile(join(dir, 'named.conf'), conf);
  const child: ChildProcess = spawn('named', ['-g', '-4', '-n', String(options.threads ?? 1), '-c', join(dir, 'named.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const { log, stop } = supervise(child, dir);
  const origin = options.zones[0]?.origin ?? '.';
  const deadline = Date.now() + 10_000;
  for (let i = 0; i < 200 && Date.now() < deadline; i++) {
    if (child.exitCode !== null) break;
    const ok = await run('dig', ['+short', '+time=1', '+tries=1', '-p', String(port), '@127.0.0.1', origin, 'SOA']).then(
      (r) => r.stdout.trim() !== '',
      () => false,
    );
    if (ok) return { port, dir, pid: child.pid ?? 0, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`named did not start:\n${log()}`);
}
