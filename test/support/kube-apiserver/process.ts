/**
 * Starts the test API server in a child process (see main.ts) and stops it again.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

export interface TestApiServerProcess {
  url: string;
  kubeconfig: string;
  pid: number;
  stop(): Promise<void>;
}

export async function spawnTestApiServer(dir: string, options: { bookmarkIntervalMs?: number; startTimeoutMs?: number } = {}): Promise<TestApiServerProcess> {
  const args = ['--import', 'tsx', MAIN, dir];
  if (options.bookmarkIntervalMs !== undefined) args.push(String(options.bookmarkIntervalMs));
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    const hello = await new Promise<{ url: string; kubeconfig: string }>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('test API server process did not start in time')), options.startTimeoutMs ?? 30_000);
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const nl = out.indexOf('\n');
        if (nl < 0) return;
        clearTimeout(timer);
        try {
          resolve(JSON.parse(out.slice(0, nl)) as { url: string; kubeconfig: string });
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`test API server process exited with ${String(code)} before listening`));
      });
    });
    return { ...hello, pid: child.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
