/**
 * Starts `bin/hostwarden run` as a child process with JSON logs and finds the ports it bound
 * (DNS and /metrics) from its log lines, so tests can use port 0 and never collide.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { BIN, REPO_ROOT } from './cli.ts';

export interface RunningHostwarden {
  child: ChildProcess;
  dnsPort: number;
  metricsPort: number;
  logs: Record<string, unknown>[];
  /** Resolves with the first log line matching `pred`, or rejects after `timeoutMs`. */
  waitForLog(pred: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `dns: false` for providers without the built-in DNS server: dnsPort is then 0. */
export async function startHostwarden(args: readonly string[], options: { timeoutMs?: number; dns?: boolean } = {}): Promise<RunningHostwarden> {
  const child = spawn(process.execPath, [BIN, 'run', '--log-format', 'json', '--dns-listen', '127.0.0.1:0', '--metrics-address', '127.0.0.1:0', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  const waiters = new Set<{ pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }>();
  let buffer = '';
  let stderrText = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    stderrText += chunk.toString();
    let nl = buffer.indexOf('\n');
    while (nl !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(line) as Record<string, unknown>;
      } catch {
        parsed = { msg: line };
      }
      logs.push(parsed);
      for (const w of [...waiters]) {
        if (w.pred(parsed)) {
          waiters.delete(w);
          w.resolve(parsed);
        }
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  const waitForLog = (pred: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<Record<string, unknown>> => {
    const found = logs.find(pred);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = { pred, resolve: (l: Record<string, unknown>) => (clearTimeout(timer), resolve(l)) };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no matching log line within ${timeoutMs} ms; stderr so far:\n${stderrText.slice(-4000)}`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  };

  const portOf = (text: string): number => Number(text.slice(text.lastIndexOf(':') + 1));
  try {
    const dnsLine = options.dns === false ? undefined : await waitForLog((l) => l['msg'] === 'DNS server listening', options.timeoutMs ?? 60_000);
    const opsLine = await waitForLog((l) => l['msg'] === 'serving /metrics and /healthz', options.timeoutMs ?? 60_000);
    const dnsPort = dnsLine === undefined ? 0 : portOf(String((dnsLine['addresses'] as string[])[0]));
    const metricsPort = portOf(String(opsLine['address']));
    return {
      child,
      dnsPort,
      metricsPort,
      logs,
      waitForLog,
      stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        const code = await exited;
        clearTimeout(killer);
        return code;
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}
