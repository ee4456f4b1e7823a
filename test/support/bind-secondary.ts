/**
 * Real BIND 9 as a secondary of one zone of a Hostwarden DNS server (a DnsServer, or a replica of
 * `run`): IXFR requested, NOTIFY accepted from 127.0.0.1, and its xfer-in/notify categories logged
 * at debug 3 to `xfer.log`, where BIND says whether each transfer came back incremental. Its
 * directory (zone file, journal, log) outlives a stop, so a restart resumes from the serial it had.
 *
 *   const bind = new BindSecondary({ dir, port, origin, primary: { host: '127.0.0.1', port } });
 *   await bind.start();
 *   await bind.serving(serial);
 *   transfers(await bind.log(), mark); // what it requested and got since `mark`
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface BindSecondaryOptions {
  /** A writable directory of its own (named writes the zone file and its .jnl there). */
  dir: string;
  /** Where it listens on 127.0.0.1 (UDP and TCP); also where NOTIFY reaches it. */
  port: number;
  origin: string;
  primary: { host: string; port: number };
  /** TSIG key it signs its SOA queries and transfers with: { name, algorithm, secret (base64) }. */
  tsigKey?: { name: string; algorithm: string; secret: string };
}

export class BindSecondary {
  readonly dir: string;
  readonly port: number;
  readonly origin: string;
  private readonly opts: BindSecondaryOptions;
  private child: ChildProcess | undefined;

  constructor(opts: BindSecondaryOptions) {
    this.opts = opts;
    this.dir = opts.dir;
    this.port = opts.port;
    this.origin = opts.origin;
  }

  async start(): Promise<void> {
    const dir = this.dir;
    const key = this.opts.tsigKey;
    const keyConf = key === undefined ? '' : `key "${key.name}" { algorithm ${key.algorithm}; secret "${key.secret}"; };\n`;
    const primary = `${this.opts.primary.host}${key === undefined ? '' : ` key "${key.name}"`};`;
    const conf = `${keyConf}options {
  directory "${dir}"; pid-file "${dir}/named.pid"; session-keyfile "${dir}/session.key"; managed-keys-directory "${dir}";
  listen-on port ${this.port} { 127.0.0.1; }; listen-on-v6 { none; };
  recursion no; dnssec-validation no; notify no; request-ixfr yes;
};
controls { };
logging {
  channel xfer { file "${dir}/xfer.log"; severity debug 3; print-time yes; };
  category xfer-in { xfer; };
  category notify { xfer; };
};
zone "${this.origin}" { type secondary; primaries port ${this.opts.primary.port} { ${primary} }; file "${dir}/secondary.db"; allow-notify { 127.0.0.1; }; };
`;
    await writeFile(join(dir, 'named.conf'), conf);
    // -f, not -g (which sends all logging to stderr); -d 1: debug mode, so the xfer channel's debug 3 lines (incremental or not) are written.
    this.child = spawn('named', ['-f', '-4', '-d', '1', '-n', '1', '-c', join(dir, 'named.conf')], { stdio: 'ignore', cwd: dir });
  }

  async stop(): Promise<void> {
    const c = this.child;
    this.child = undefined;
    if (c === undefined || c.exitCode !== null) return;
    const exited = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  log(): Promise<string> {
    return readFile(join(this.dir, 'xfer.log'), 'utf8').catch(() => '');
  }

  /** The zone's SOA serial as BIND answers it; undefined without an answer. */
  async serial(): Promise<number | undefined> {
    const out = await run('dig', ['+short', '+time=1', '+tries=1', '-p', String(this.port), '@127.0.0.1', this.origin, 'SOA'], { timeout: 5000 }).then(
      (r) => r.stdout.trim(),
      () => '',
    );
    const serial = out.split(/\s+/)[2];
    return serial === undefined ? undefined : Number(serial);
  }

  /** Waits (bounded by `ms`) until the secondary serves `serial`. */
  async serving(serial: number, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    let last: number | undefined;
    for (let i = 0; i < 1000 && Date.now() < deadline; i++) {
      last = await this.serial();
      if (last === serial) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`BIND secondary serves serial ${last}, not ${serial}\n${await this.log()}`);
  }
}

/** Lines of a BindSecondary's `xfer.log` about its transfers, from character `from` on. */
export function transfers(log: string, from: number): string[] {
  return log
    .slice(from)
    .split('\n')
    .filter((l) => /incremental response|Transfer completed|requesting (IXFR|AXFR)/.test(l));
}
