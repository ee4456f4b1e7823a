/** Runs the real `dig` against a test server and parses the parts of its output tests compare. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface DigResult {
  status: string;
  flags: string[];
  answer: string[];
  authority: string[];
  additional: string[];
  /** True when dig printed "Truncated, retrying in TCP mode". */
  retriedTcp: boolean;
  raw: string;
}

export function digAvailable(): Promise<boolean> {
  return run('dig', ['-v']).then(
    () => true,
    () => false,
  );
}

/** `args` are passed after `@127.0.0.1 -p port`; +time/+tries bound every call. */
export async function dig(port: number, args: string[], host = '127.0.0.1'): Promise<DigResult> {
  const { stdout } = await run('dig', [`@${host}`, '-p', String(port), '+time=2', '+tries=1', '+nocookie', ...args], { timeout: 15_000 });
  return parseDig(stdout);
}

/** Normalises whitespace so records compare as text: "name ttl class type rdata". */
function record(line: string): string {
  return line.trim().split(/\s+/).join(' ');
}

export function parseDig(out: string): DigResult {
  const res: DigResult = {
    status: '',
    flags: [],
    answer: [],
    authority: [],
    additional: [],
    retriedTcp: out.includes('Truncated, retrying in TCP mode'),
    raw: out,
  };
  let section: 'answer' | 'authority' | 'additional' | undefined;
  for (const line of out.split('\n')) {
    const status = /status: ([A-Z]+)/.exec(line);
    if (status !== null) res.status = status[1] ?? '';
    const flags = /;; flags: ([^;]*);/.exec(line);
    if (flags !== null)
      res.flags = (flags[1] ?? '')
        .trim()
        .split(/\s+/)
        .filter((f) => f !== '');
    if (line.startsWith(';; ANSWER SECTION')) section = 'answer';
    else if (line.startsWith(';; AUTHORITY SECTION')) section = 'authority';
    else if (line.startsWith(';; ADDITIONAL SECTION')) section = 'additional';
    else if (line.trim() === '' || line.startsWith(';')) {
      if (line.trim() === '') section = undefined;
    } else if (section !== undefined) res[section].push(record(line));
  }
  return res;
}

/**
 * Runs many queries in one dig process (`dig -f`), which is far faster than one process per query.
 * Each element of `queries` is one line of arguments; results come back in the same order.
 */
export async function digBatch(port: number, queries: string[][], common: string[] = [], host = '127.0.0.1'): Promise<DigResult[]> {
  const { writeFile, mkdtemp, rm } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = await mkdtemp(join(tmpdir(), 'hw-dig-'));
  try {
    const file = join(dir, 'queries.txt');
    await writeFile(file, queries.map((q) => q.join(' ')).join('\n') + '\n');
    const { stdout } = await run('dig', [`@${host}`, '-p', String(port), '+time=2', '+tries=2', '+nocookie', ...common, '-f', file], {
      timeout: 120_000,
      maxBuffer: 64 << 20,
    });
    // Every answer starts with dig's banner line.
    const chunks = stdout.split(/\n(?=; <<>> DiG )/).filter((c) => c.includes('<<>> DiG'));
    return chunks.map(parseDig);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
