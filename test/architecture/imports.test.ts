/**
 * The module map's "never" rules (ARCHITECTURE.md), checked over the import graph of src/: which
 * folder may import which, no import cycles (type-only imports count: a cycle of types is still a
 * knot a reader must untie), and only cli/ touching argv, the environment and signals. A failure
 * names the file and the import, so the fix is to move the shared piece where its name says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** file (relative to src/) → the src files it imports (relative to src/). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const m of text.matchAll(pattern)) {
      const spec = m[1] ?? m[2] ?? '';
      targets.push(relative(SRC, normalize(join(dirname(file), spec))));
    }
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

const top = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);
const CONTROLLERS = ['controller', 'dnsrecord', 'operator', 'admission', 'privatelink'];
const LIBRARIES = ['kube', 'http', 'aws', 'dns', 'endpoint', 'config', 'template'];

/** Why `from` may not import `to`, or undefined when it may. */
function forbidden(from: string, to: string): string | undefined {
  const a = top(from);
  const b = top(to);
  if (a === b) {
    const formatLibrary = a === 'dns' && !from.startsWith('dns/server/');
    return formatLibrary && to.startsWith('dns/server/') ? 'the DNS format library (dns/) never imports the server (dns/server/)' : undefined;
  }
  if (a === 'plan' && b !== 'endpoint') return 'plan/ imports nothing but endpoint/';
  if (LIBRARIES.includes(a) && [...CONTROLLERS, 'cli', 'source', 'plan'].includes(b)) return `${a}/ is a library: no controller folder, cli/, source/ or plan/`;
  if (CONTROLLERS.includes(a) && CONTROLLERS.includes(b)) return 'a controller folder never imports another controller folder';
  if (a === 'dns' && b === 'provider') return 'dns/ never imports provider/ (zones arrive through dns/zone-content.ts)';
  if (b === 'cli') return 'nothing imports cli/';
  if (b === 'console' && a !== 'cli') return 'console/ (the web console) is a server of its own: only cli/ imports it';
  // A provider folder's inside is its own: other folders use the port, its flags, its fromConfig
  // (through cli/wiring.ts) or, for the DNSRecord backends, the adapter it exports (record-sets.ts).
  if (a === 'dnsrecord' && /^provider\/[^/]+\//.test(to) && !to.endsWith('/record-sets.ts'))
    return 'dnsrecord/ reaches a provider only through its record-sets.ts adapter';
  return undefined;
}

test('no import breaks a "never" rule of the module map', () => {
  const problems: string[] = [];
  for (const [from, targets] of importGraph()) {
    for (const to of targets) {
      const why = forbidden(from, to);
      if (why !== undefined) problems.push(`${from} → ${to}: ${why}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('no import cycles between files', () => {
  const graph = importGraph();
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
      else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (state.get(file) === undefined) visit(file);
  assert.deepEqual(cycles, []);
});

test('only cli/ reads argv and the environment or installs signal handlers', () => {
  const problems: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const rel = relative(SRC, file);
    if (top(rel) === 'cli') continue;
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const m of text.matchAll(/process\.(argv|env)\b|process\.(?:on|once)\(\s*'(SIG[A-Z]+)'/g))
      problems.push(`${rel}: process.${m[1] ?? `on('${m[2] ?? ''}')`}`);
  }
  assert.deepEqual(problems, []);
});
