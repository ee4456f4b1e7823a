/**
 * A throw-away PowerDNS Authoritative server (SQLite backend, HTTP API) for tests: own temp
 * directory, 127.0.0.1 only, free DNS and API ports, stopped by PID. Configuration follows
 * ../shared/notes/test-servers.md.
 */
import { supervise } from './server-process.ts';
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './bind.ts';

const run = promisify(execFile);
const SCHEMA = '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql';

export interface PdnsServer {
  apiUrl: string;
  apiKey: string;
  dnsPort: number;
  apiPort: number;
  dir: string;
  /** Creates a Native zone with one NS record, as an operator would. */
  createZone(name: string): Promise<void>;
  /** Raw API call, for checks that bypass the provider. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
}

/** Undefined when PowerDNS can run here; otherwise why the test is skipped. */
export async function pdnsUnavailable(): Promise<string | undefined> {
  const ok = (script: string): Promise<boolean> =>
    run('sh', ['-c', script]).then(
      () => true,
      () => false,
    );
  if (!(await ok('command -v pdns_server'))) return 'pdns_server is not installed';
  if (!(await ok('command -v sqlite3'))) return 'sqlite3 is not installed';
  if (!(await ok(`test -r ${SCHEMA}`))) return `${SCHEMA} is missing (pdns-backend-sqlite3)`;
  return undefined;
}

export async function startPdns(): Promise<PdnsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'hw-pdns-'));
  const dnsPort = await freePort();
  let apiPort = await freePort();
  while (apiPort === dnsPort) apiPort = await freePort();
  const apiKey = 'test-key-1234';
  await run('sh', ['-c', `sqlite3 "${dir}/pdns.sqlite3" < ${SCHEMA}`]);
  await writeFile(
    join(dir, 'pdns.conf'),
    [
      'launch=gsqlite3',
      `gsqlite3-database=${dir}/pdns.sqlite3`,
      'local-address=127.0.0.1',
      `local-port=${dnsPort}`,
      `socket-dir=${dir}`,
      'api=yes',
      `api-key=${apiKey}`,
      'webserver=yes',
      'webserver-address=127.0.0.1',
      `webserver-port=${apiPort}`,
      'webserver-allow-from=127.0.0.0/8',
      'daemon=no',
      'guardian=no',
      'disable-syslog=yes',
      'security-poll-suffix=',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('pdns_server', [`--config-dir=${dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { log, stop } = supervise(child, dir);
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${apiUrl}/api/v1/servers/localhost/${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed };
  };
  const createZone = async (name: string): Promise<void> => {
    const res = await api('POST', 'zones', { name: `${name}.`, kind: 'Native', nameservers: [`ns1.${name}.`] });
    if (res.status !== 201) throw new Error(`creating zone ${name}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  };
  const deadline = Date.now() + 15_000;
  for (let i = 0; i < 300 && Date.now() < deadline; i++) {
    if (child.exitCode !== null) break;
    const ok = await api('GET', 'zones').then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { apiUrl, apiKey, dnsPort, apiPort, dir, createZone, api, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`pdns_server did not start:\n${log()}`);
}
