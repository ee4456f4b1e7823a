/**
 * @google-cloud/dns only talks HTTPS, and Node reads NODE_EXTRA_CA_CERTS at start-up, so suites
 * against the Cloud DNS emulator run in a child process that trusts the emulator's self-signed
 * certificate. The parent registers one test that makes the certificate, runs the same file as the
 * child (which then runs `suite`), and passes when the child exits 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { makeSelfSignedCert, opensslUnavailable } from '../tls.ts';

export interface ChildSuiteOptions {
  /** Test name in the parent. */
  name: string;
  /** Variable that tells the child where the certificate is (and that it is the child). */
  envVar: string;
  /** The test file itself (`fileURLToPath(import.meta.url)`). */
  file: string;
  timeoutMs: number;
  /** Registers the child's tests; gets the certificate directory. */
  suite: (tlsDir: string) => void;
}

export async function suiteTrustingEmulator(opts: ChildSuiteOptions): Promise<void> {
  const tlsDir = process.env[opts.envVar];
  if (tlsDir !== undefined) {
    opts.suite(tlsDir);
    return;
  }
  const skip = await opensslUnavailable();
  test(opts.name, { skip: skip ?? false, timeout: opts.timeoutMs + 10_000 }, async () => {
    const cert = await makeSelfSignedCert();
    try {
      // Without NODE_TEST_CONTEXT the child reports in readable form instead of the runner's protocol.
      const env: NodeJS.ProcessEnv = { ...process.env, [opts.envVar]: cert.dir, NODE_EXTRA_CA_CERTS: cert.certFile, METADATA_SERVER_DETECTION: 'none' };
      delete env['NODE_TEST_CONTEXT'];
      const { code, output } = await runChild(opts.file, env, opts.timeoutMs);
      assert.equal(code, 0, output);
    } finally {
      await cert.cleanup();
    }
  });
}

function runChild(file: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
