/** The real kubectl, run against the test API server by the kube and deploy tests. */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** kubectl's path, or undefined when it is not installed (the tests then skip). */
export function findKubectl(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs kubectl with `baseArgs` (kubeconfig, cache dir, timeouts) before every call. `until` ends a
 * long-running command (get -w) once its output satisfies it; `timeoutMs` bounds every call.
 */
export function kubectlRunner(binary: string, baseArgs: () => readonly string[], defaultTimeoutMs = 30_000) {
  const run = (args: string[], input?: string, timeoutMs = defaultTimeoutMs, until?: (stdout: string) => boolean): Promise<KubectlResult> =>
    new Promise((resolve, reject) => {
      const child = spawn(binary, [...baseArgs(), ...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (until?.(stdout) === true) child.kill('SIGKILL');
      });
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input ?? '');
    });
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await run(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  return { run, ok };
}
