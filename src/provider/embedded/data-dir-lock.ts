/**
 * One process per data directory. Two writers on one directory lose acknowledged changes (each
 * rewrites whole zone files from its own memory and both count the SOA serial up from the same
 * number), so the zone store takes this lock before it touches anything in the directory and
 * holds it until it closes; a second process stops at start-up with one line naming the holder.
 *
 * Why a listening Unix socket and not a lock file: Node has no flock()/fcntl(), and a pid file
 * outlives `kill -9`. Deciding whether its pid is still alive is a guess (a restarted container
 * often gets the very same pid; another pid namespace sees nothing), so a pid file either needs a
 * human after every crash or lets two writers in. A bound socket name is owned by the kernel: one
 * process at a time can bind it, and the kernel frees it the moment that process dies, however it
 * dies. On Linux the name is in the abstract namespace (no file at all, so nothing goes stale);
 * it is derived from the directory's real path, so every spelling of the path (symlinks, `..`)
 * meets the same lock. Elsewhere it is a socket file in the directory; a socket file nobody
 * accepts on is a dead holder's and is replaced.
 *
 * The holder also writes its pid to `hostwarden.pid` in the directory, only to name itself in the
 * refusal: the file is not the lock, and one left behind by `kill -9` means nothing.
 *
 * Limits: the abstract namespace belongs to a network namespace, so two containers that share the
 * directory through a volume but not their network do not see each other's lock (Kubernetes
 * deployments keep to one pod: the manifests use the Recreate strategy). The socket-file fallback
 * cannot tell two processes that replace the same dead holder's file at the same instant apart.
 * Abstract names are visible to every user of the network namespace: a local user who knows the
 * directory's path could bind the name first and so keep Hostwarden from starting (never from
 * writing alongside it).
 */
import { createHash } from 'node:crypto';
import { readFile, realpath, unlink, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { ConfigError, ProviderError, errorMessage } from '../../errors.ts';

export const PID_FILE = 'hostwarden.pid';
/** The socket file of the fallback mode (platforms without Linux's abstract socket names). */
export const LOCK_SOCKET_FILE = 'hostwarden.lock';
/** Bounds the retries while a just-started holder has bound its name but not yet written its pid. */
const PID_ATTEMPTS = 10;
const PID_RETRY_MS = 20;

export type LockMode = 'abstract' | 'file';

export interface DataDirLockOptions {
  /** `abstract` on Linux, else `file`; tests choose. */
  mode?: LockMode;
  pid?: number;
  /** The flag that named the directory, for the refusal message. */
  flag?: string;
}

export class DataDirLock {
  readonly dir: string;
  readonly pid: number;
  private readonly server: Server;
  private released = false;

  private constructor(dir: string, pid: number, server: Server) {
    this.dir = dir;
    this.pid = pid;
    this.server = server;
  }

  /**
   * Takes the lock on an existing directory or throws a ConfigError naming the directory and
   * the holder's pid. Resolves only once the lock is held.
   */
  static async acquire(dir: string, options: DataDirLockOptions = {}): Promise<DataDirLock> {
    const mode = options.mode ?? (process.platform === 'linux' ? 'abstract' : 'file');
    const pid = options.pid ?? process.pid;
    const flag = options.flag ?? '--embedded-data-dir';
    let real: string;
    try {
      real = await realpath(dir);
    } catch (err) {
      throw new ProviderError('embedded', `cannot lock the data directory ${dir}: ${errorMessage(err)}`, { code: 'DATA_DIR_LOCK_FAILED', cause: err });
    }
    const address = mode === 'abstract' ? `\0hostwarden-data-dir:${createHash('sha256').update(real).digest('hex')}` : join(real, LOCK_SOCKET_FILE);
    let server = await listen(address);
    if (server === undefined && mode === 'file' && !(await accepts(address))) {
      // Nobody accepts on the file: its holder died without closing it.
      await unlink(address).catch(() => undefined);
      server = await listen(address);
    }
    if (server === undefined) {
      const holder = await holderPid(real);
      const who = holder === undefined ? 'another Hostwarden process' : `Hostwarden process ${holder}`;
      throw new ConfigError(`${flag} ${dir} is locked by ${who}: two processes must not share a data directory; stop it or choose another directory`, flag);
    }
    const lock = new DataDirLock(real, pid, server);
    try {
      await writeFile(join(real, PID_FILE), `${pid}\n`);
    } catch (err) {
      await lock.release();
      throw new ProviderError('embedded', `cannot write ${join(real, PID_FILE)}: ${errorMessage(err)}`, { code: 'DATA_DIR_LOCK_FAILED', cause: err });
    }
    return lock;
  }

  /** Frees the lock; the pid file goes first, so it never names a later holder's predecessor. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const pidFile = join(this.dir, PID_FILE);
    const named = await readFile(pidFile, 'utf8').catch(() => '');
    if (named.trim() === String(this.pid)) await unlink(pidFile).catch(() => undefined);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Binds `address`; undefined when another socket holds it. */
function listen(address: string): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    // A connection is only ever a liveness probe (file mode): nothing is said on it.
    const server = createServer((socket) => socket.destroy());
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') resolve(undefined);
      else reject(new ProviderError('embedded', `cannot lock the data directory: ${err.message}`, { code: 'DATA_DIR_LOCK_FAILED', cause: err }));
    });
    // exclusive: in a cluster worker, listen() would otherwise share the primary's socket.
    server.listen({ path: address, exclusive: true }, () => {
      // The lock never keeps the process alive on its own.
      server.unref();
      resolve(server);
    });
  });
}

/** True when a process accepts connections on the socket file `address`. */
function accepts(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ path: address });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    // ECONNREFUSED (nobody listening) and ENOTSOCK alike: there is no live holder behind it.
    socket.once('error', () => resolve(false));
  });
}

/** The pid in the holder's pid file; a holder that has just started may not have written it yet. */
async function holderPid(dir: string): Promise<number | undefined> {
  for (let attempt = 0; attempt < PID_ATTEMPTS; attempt++) {
    const text = await readFile(join(dir, PID_FILE), 'utf8').catch(() => '');
    const pid = Number(text.trim());
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return pid;
    await new Promise((resolve) => setTimeout(resolve, PID_RETRY_MS));
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
