/**
 * The webhook's serving certificate: read from files and re-read when they change (cert-manager and
 * Secret volume updates replace them in place or by symlink swap), or generated self-signed at
 * start for local use. A half-written or mismatched pair is never installed: the old certificate
 * keeps serving until a good pair appears.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { ConfigError, HostwardenError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';

export interface TlsMaterial {
  key: Buffer;
  cert: Buffer;
  /** Seconds since the epoch when the (first) certificate expires. */
  notAfter: number;
}

export class TlsError extends HostwardenError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('TLS_INVALID', message, options);
  }
}

/** Checks that key and certificate parse and belong together; throws TlsError otherwise. */
export function checkPair(key: Buffer, cert: Buffer, what: string): TlsMaterial {
  try {
    createSecureContext({ key, cert });
    const notAfter = Date.parse(new X509Certificate(cert).validTo) / 1000;
    return { key, cert, notAfter };
  } catch (err) {
    throw new TlsError(`${what}: ${errorMessage(err)}`, { cause: err });
  }
}

export interface CertificateFilesOptions {
  certFile: string;
  keyFile: string;
  logger: Logger;
  /** Re-read this often even without a file event (events can be missed). */
  pollIntervalMs?: number;
  /** Wait this long after an event for the writer to finish. */
  settleMs?: number;
}

export class CertificateFiles {
  private readonly certFile: string;
  private readonly keyFile: string;
  private readonly log: Logger;
  private readonly pollIntervalMs: number;
  private readonly settleMs: number;
  private current: TlsMaterial | undefined;
  private watchers: FSWatcher[] = [];
  private poll: NodeJS.Timeout | undefined;
  private settle: NodeJS.Timeout | undefined;

  constructor(opts: CertificateFilesOptions) {
    this.certFile = opts.certFile;
    this.keyFile = opts.keyFile;
    this.log = opts.logger;
    this.pollIntervalMs = opts.pollIntervalMs ?? 60_000;
    this.settleMs = opts.settleMs ?? 100;
  }

  /** The first load: any problem stops start-up, naming the flag. */
  async load(): Promise<TlsMaterial> {
    let cert: Buffer;
    let key: Buffer;
    try {
      cert = await readFile(this.certFile);
    } catch (err) {
      throw new ConfigError(`--tls-cert-file: cannot read ${this.certFile}: ${errorMessage(err)}`, '--tls-cert-file');
    }
    try {
      key = await readFile(this.keyFile);
    } catch (err) {
      throw new ConfigError(`--tls-private-key-file: cannot read ${this.keyFile}: ${errorMessage(err)}`, '--tls-private-key-file');
    }
    try {
      this.current = checkPair(key, cert, `${this.certFile} and ${this.keyFile}`);
    } catch (err) {
      throw new ConfigError(`--tls-cert-file/--tls-private-key-file: ${errorMessage(err)}`, '--tls-cert-file');
    }
    return this.current;
  }

  /** Calls `onChange` with each new good pair until `stop()`. */
  watch(onChange: (material: TlsMaterial) => void): void {
    const trigger = (): void => {
      clearTimeout(this.settle);
      this.settle = setTimeout(() => void this.reload(onChange), this.settleMs);
    };
    for (const dir of new Set([dirname(this.certFile), dirname(this.keyFile)])) {
      try {
        const w = watch(dir, { persistent: false }, trigger);
        w.on('error', (err) => this.log.warn({ dir, err: errorMessage(err) }, 'certificate directory watch failed; polling only'));
        this.watchers.push(w);
      } catch (err) {
        this.log.warn({ dir, err: errorMessage(err) }, 'cannot watch the certificate directory; polling only');
      }
    }
    this.poll = setInterval(() => void this.reload(onChange), this.pollIntervalMs);
    this.poll.unref();
  }

  stop(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    clearInterval(this.poll);
    clearTimeout(this.settle);
  }

  private async reload(onChange: (material: TlsMaterial) => void): Promise<void> {
    let next: TlsMaterial;
    try {
      const [cert, key] = await Promise.all([readFile(this.certFile), readFile(this.keyFile)]);
      if (this.current !== undefined && cert.equals(this.current.cert) && key.equals(this.current.key)) return;
      next = checkPair(key, cert, `${this.certFile} and ${this.keyFile}`);
    } catch (err) {
      // Writers replace the two files one after the other; the next event completes the pair.
      this.log.warn({ err: errorMessage(err) }, 'certificate files changed but are not a usable pair yet; still serving the previous certificate');
      return;
    }
    this.current = next;
    this.log.info({ certFile: this.certFile, notAfter: new Date(next.notAfter * 1000).toISOString() }, 'serving certificate reloaded');
    onChange(next);
  }
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 30_000 }, (err, _stdout, stderr) => (err === null ? resolve() : reject(new Error(`${errorMessage(err)} ${stderr}`.trim()))));
  });
}

/**
 * A self-signed certificate for `hosts` (names and IP addresses), made with the openssl command
 * (Node has no X.509 writer). The key never leaves a private temporary directory, removed after.
 */
export async function selfSignedCertificate(hosts: readonly string[], opts: { openssl?: string; days?: number } = {}): Promise<TlsMaterial> {
  const dir = await mkdtemp(join(tmpdir(), 'hostwarden-admission-tls-'));
  try {
    const san = hosts.map((h) => (/^[0-9.]+$/.test(h) || h.includes(':') ? `IP:${h}` : `DNS:${h}`)).join(',');
    const keyPath = join(dir, 'tls.key');
    const certPath = join(dir, 'tls.crt');
    await run(opts.openssl ?? 'openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      String(opts.days ?? 365),
      '-subj',
      `/CN=${hosts[0] ?? 'hostwarden-admission'}`,
      '-addext',
      `subjectAltName=${san}`,
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ]).catch((err: unknown) => {
      throw new ConfigError(`--tls-self-signed needs the openssl command: ${errorMessage(err)}`, '--tls-self-signed');
    });
    return checkPair(await readFile(keyPath), await readFile(certPath), 'self-signed certificate');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
