/**
 * Supervision shared by the harnesses that start real servers (BIND, PowerDNS, etcd): keep the
 * start-up log for error messages, kill the server if the test process dies first, and stop it
 * (SIGTERM, then SIGKILL after 3 s) and remove its directory.
 */
import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';

const LOG_LIMIT = 100_000;

export interface Supervised {
  /** What the server printed so far (bounded), for "did not start" errors. */
  log(): string;
  stop(): Promise<void>;
}

export function supervise(child: ChildProcess, dir: string): Supervised {
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let log = '';
  const collect = (d: Buffer): void => {
    if (log.length < LOG_LIMIT) log += d.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return {
    log: () => log,
    stop: async () => {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
