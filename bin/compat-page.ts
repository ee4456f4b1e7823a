/**
 * `npm run docs:compat`: writes docs/external-dns-compatibility.md from the code (the flag tables,
 * the provider and source tables, what Hostwarden knows it lacks, the annotation keys its
 * translators read) and the upstream inventories restated in test/conformance/external-dns/. A test
 * (test/docs/compat-page.test.ts) regenerates it and fails when the committed page differs, so
 * the page cannot drift from the code.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_FLAGS } from '../src/cli/commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../src/cli/wiring.ts';
import { parseDuration } from '../src/config/duration.ts';
import type { FlagSpec } from '../src/config/flags.ts';
import {
  FLAG_DIFFERENCES,
  UNIMPLEMENTED_PROVIDERS,
  UNIMPLEMENTED_REGISTRIES,
  UNIMPLEMENTED_SOURCES,
  unimplementedGroupOf,
} from '../src/config/upstream-flags.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const PAGE = 'docs/external-dns-compatibility.md';
const DATA = 'test/conformance/external-dns';

export interface UpstreamFlag {
  name: string;
  kind: string;
  default: string | boolean | string[] | null;
  repeatable: boolean;
  choices?: string[];
  belongsTo: { kind: string; names?: string[] };
  readBy?: { kind: string; names: string[] };
  deprecated?: string;
}

interface FlagInventory {
  upstreamCommit: string;
  providers: string[];
  sources: string[];
  registries: string[];
  flags: UpstreamFlag[];
}

interface UpstreamAnnotation {
  key: string;
  about: string;
  prefix?: boolean;
  sources?: string[];
  providers?: string[];
}

export interface Row {
  name: string;
  /** same, differs: …, missing-provider X, missing-source X, missing-registry X, or missing. */
  status: string;
  detail: string;
}

const readJson = <T>(root: string, path: string): T => JSON.parse(readFileSync(join(root, path), 'utf8')) as T;

/** What differs between the upstream flag and Hostwarden's (kind, repeatability, default); '' when nothing does. */
export function flagMismatch(up: UpstreamFlag, hw: FlagSpec): string {
  const upKind = up.repeatable ? 'list' : up.kind === 'enum' || up.kind === 'regexp' ? 'string' : up.kind;
  if (upKind !== hw.kind) return `kind ${hw.kind}${hw.kind === 'list' ? ' (repeatable)' : ''}, upstream ${up.kind}${up.repeatable ? ' (repeatable)' : ''}`;
  if (up.default === null) return hw.default === undefined ? '' : `default ${show(hw.default)}, upstream none (required)`;
  const same =
    hw.kind === 'duration'
      ? parseDuration(String(up.default)) === parseDuration(String(hw.default ?? '0s'))
      : hw.kind === 'int'
        ? Number(up.default) === Number(hw.default ?? 0)
        : show(up.default) === show(hw.default ?? (hw.kind === 'bool' ? false : hw.kind === 'list' ? [] : ''));
  return same ? '' : `default ${show(hw.default)}, upstream ${show(up.default)}`;
}

function show(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  if (value === '' || value === undefined) return '""';
  return String(value);
}

function owner(up: UpstreamFlag): string {
  const b = up.readBy ?? up.belongsTo;
  return b.names === undefined ? '' : `${b.kind} ${b.names.join(', ')}`;
}

export function flagRows(root = ROOT): Row[] {
  const inv = readJson<FlagInventory>(root, `${DATA}/flags.json`);
  return inv.flags.map((up) => {
    const hw = ALL_FLAGS.find((f) => f.name === up.name);
    const detail = [`\`${show(up.default ?? '(required)')}\``, owner(up)].filter((s) => s !== '').join(' · ');
    if (hw !== undefined) {
      const reason = FLAG_DIFFERENCES[up.name];
      if (reason !== undefined) return { name: up.name, status: `differs: ${reason}`, detail };
      const mismatch = flagMismatch(up, hw);
      return { name: up.name, status: mismatch === '' ? 'same' : `differs: ${mismatch} (no reason recorded)`, detail };
    }
    const group = unimplementedGroupOf(up.name);
    if (group !== undefined) return { name: up.name, status: `missing-${group.kind} ${group.owner}`, detail };
    return { name: up.name, status: 'missing', detail };
  });
}

/** Every single-quoted literal in the non-test sources of `dirs`: the annotation keys the translators read are among them. */
function literals(root: string, dirs: string[]): Set<string> {
  const out = new Set<string>();
  for (const dir of dirs) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
      const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
      for (const m of text.matchAll(/'([a-z0-9][a-z0-9-]*)'/g)) if (m[1] !== undefined) out.add(m[1]);
    }
  }
  return out;
}

export function annotationRows(root = ROOT): Row[] {
  const { annotations } = readJson<{ annotations: UpstreamAnnotation[] }>(root, `${DATA}/annotations.json`);
  const keys = literals(root, ['src/source/translate', 'src/source/kube']);
  return annotations.map((a) => {
    const read = a.prefix === true ? [...keys].some((k) => k.startsWith(a.key)) : keys.has(a.key);
    const lackedSources = (a.sources ?? []).filter((s) => !SOURCE_NAMES.includes(s));
    const lackedProviders = (a.providers ?? []).filter((p) => !PROVIDER_NAMES.includes(p));
    const name = `external-dns.kubernetes.io/${a.key}${a.prefix === true ? '*' : ''}`;
    let status = read ? 'same' : 'missing';
    if (a.sources !== undefined && lackedSources.length === a.sources.length) status = `missing-source ${lackedSources.join(', ')}`;
    else if (!read && a.providers !== undefined && lackedProviders.length === a.providers.length) status = `missing-provider ${lackedProviders.join(', ')}`;
    else if (read && lackedProviders.length > 0)
      status = `same (passed on as provider-specific properties; provider ${lackedProviders.join(', ')} through the webhook provider)`;
    return { name, status, detail: a.about };
  });
}

function choiceRows(upstream: string[], implemented: readonly string[], lacking: readonly string[], kind: string): Row[] {
  const rows = upstream.map((name) => {
    if (implemented.includes(name)) return { name, status: 'same', detail: '' };
    return { name, status: lacking.includes(name) ? `missing-${kind} ${name}` : 'missing', detail: '' };
  });
  for (const name of implemented) if (!upstream.includes(name)) rows.push({ name, status: 'Hostwarden only', detail: '' });
  return rows;
}

interface MetricItem {
  name: string;
  type?: string;
  labels?: string[];
  differs?: string;
  missing?: boolean | string;
  hostwarden?: unknown;
}

/** Rows of the metrics inventory (written by the metrics work); undefined while it does not exist. */
export function metricRows(root = ROOT): Row[] | undefined {
  const path = `${DATA}/metrics.json`;
  if (!existsSync(join(root, path))) return undefined;
  const doc = readJson<MetricItem[] | { metrics?: MetricItem[]; cases?: MetricItem[] }>(root, path);
  const items = Array.isArray(doc) ? doc : (doc.metrics ?? doc.cases ?? []);
  return items.map((m) => {
    const status =
      m.differs !== undefined
        ? `differs: ${m.differs}`
        : m.missing !== undefined && m.missing !== false
          ? `missing${typeof m.missing === 'string' ? `: ${m.missing}` : ''}`
          : 'same';
    return { name: m.name, status, detail: [m.type, (m.labels ?? []).join(', ')].filter((s) => s !== undefined && s !== '').join(' · ') };
  });
}

interface DifferingCase {
  file: string;
  name: string;
  upstreamTest: string;
  differs: string;
}

/** Every conformance case marked `differs`, from every data file under test/conformance/external-dns/. */
export function differingCases(root = ROOT): DifferingCase[] {
  const out: DifferingCase[] = [];
  const dir = join(root, DATA);
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    // The metrics inventory has its own section, differences included.
    .filter((e) => e.isFile() && e.name.endsWith('.json') && relative(dir, join(e.parentPath, e.name)) !== 'metrics.json')
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of files) {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { cases?: { name?: string; upstreamTest?: string; differs?: string }[] };
    for (const c of doc.cases ?? []) {
      if (typeof c.differs !== 'string') continue;
      out.push({ file: relative(dir, file), name: c.name ?? '', upstreamTest: c.upstreamTest ?? '', differs: c.differs });
    }
  }
  return out;
}

interface BehaviourDifference {
  area: string;
  upstream: string;
  upstreamBehaviour: string;
  hostwarden: string;
  why: string;
  test: string;
}

/** Differences no upstream test table covers (test/conformance/external-dns/behaviour.json). */
export function behaviourDifferences(root = ROOT): BehaviourDifference[] {
  return readJson<{ entries: BehaviourDifference[] }>(root, `${DATA}/behaviour.json`).entries;
}

const cell = (s: string): string => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

function table(headers: string[], rows: string[][]): string[] {
  return [`| ${headers.join(' | ')} |`, `|${headers.map(() => ' --- ').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)];
}

function summary(rows: Row[]): string {
  const count = (p: (s: string) => boolean): number => rows.filter((r) => p(r.status)).length;
  const same = count((s) => s.startsWith('same'));
  const differs = count((s) => s.startsWith('differs'));
  const lacking = count((s) => s.startsWith('missing-'));
  const missing = count((s) => s === 'missing' || s.startsWith('missing:'));
  return `${rows.length} upstream: ${same} same, ${differs} differ, ${lacking} belong to what Hostwarden does not implement, ${missing} missing.`;
}

function headerLines(inv: FlagInventory): string[] {
  return [
    '# external-dns compatibility',
    '',
    '<!-- Generated by `npm run docs:compat` (bin/compat-page.ts) from the code and test/conformance/external-dns/; do not edit. -->',
    '',
    `What Hostwarden does with each flag, annotation, source, provider, registry and metric of external-dns (inventories restated from external-dns at commit \`${inv.upstreamCommit.slice(0, 12)}\`).`,
    'Status: **same**; **differs** (with why); **missing-provider X** / **missing-source X** / **missing-registry X**: it belongs to an external-dns provider, source or registry Hostwarden does not implement, and start-up stops with one line naming it (keep it by running that part of external-dns with `--provider=webhook`, as the line says); **missing**: not implemented yet.',
    '',
  ];
}

function flagAndAnnotationLines(root: string): string[] {
  const flags = flagRows(root);
  const annotations = annotationRows(root);
  return [
    '## Flags',
    '',
    summary(flags),
    '',
    ...table(
      ['flag', 'upstream default · read by', 'status'],
      flags.map((r) => [`\`--${r.name}\``, r.detail, r.status]),
    ),
    '',
    '## Annotations',
    '',
    'Read under `external-dns.kubernetes.io/` and `external-dns.alpha.kubernetes.io/`.',
    '',
    summary(annotations),
    '',
    ...table(
      ['annotation', 'meaning', 'status'],
      annotations.map((r) => [`\`${r.name}\``, r.detail, r.status]),
    ),
    '',
  ];
}

function choiceLines(inv: FlagInventory): string[] {
  const section = (title: string, flag: string, rows: Row[]): string[] => [
    `## ${title}`,
    '',
    ...table(
      [flag, 'status'],
      rows.map((r) => [`\`${r.name}\``, r.status]),
    ),
    '',
  ];
  return [
    ...section('Sources', '--source', choiceRows(inv.sources, SOURCE_NAMES, UNIMPLEMENTED_SOURCES, 'source')),
    ...section('Providers', '--provider', choiceRows(inv.providers, PROVIDER_NAMES, UNIMPLEMENTED_PROVIDERS, 'provider')),
    ...section('Registries', '--registry', choiceRows(inv.registries, ['txt', 'noop'], UNIMPLEMENTED_REGISTRIES, 'registry')),
  ];
}

function metricLines(root: string): string[] {
  const metrics = metricRows(root);
  const body =
    metrics === undefined
      ? ['The metric inventory (test/conformance/external-dns/metrics.json) is not there yet.']
      : [
          summary(metrics),
          '',
          ...table(
            ['metric', 'type · labels', 'status'],
            metrics.map((r) => [`\`${r.name}\``, r.detail, r.status]),
          ),
        ];
  return ['## Metrics', '', ...body, ''];
}

function differenceLines(root: string): string[] {
  const cases = differingCases(root);
  const behaviour = behaviourDifferences(root);
  return [
    '## Deliberate differences',
    '',
    "Cases of external-dns's own tests (restated under test/conformance/external-dns/) that Hostwarden answers differently on purpose; the runners assert Hostwarden's answer.",
    '',
    ...(cases.length === 0
      ? ['None recorded yet.']
      : table(
          ['data', 'case', 'upstream test', 'why'],
          cases.map((c) => [c.file, c.name, c.upstreamTest, c.differs]),
        )),
    '',
    '## Behaviour differences outside the test tables',
    '',
    'What Hostwarden does on purpose where no external-dns test case covers the behaviour; each row names the Hostwarden test that asserts it.',
    '',
    ...table(
      ['area', 'external-dns', 'Hostwarden', 'why', 'test'],
      behaviour.map((b) => [b.area, `${b.upstreamBehaviour} (${b.upstream})`, b.hostwarden, b.why, b.test]),
    ),
    '',
  ];
}

export function renderPage(root = ROOT): string {
  const inv = readJson<FlagInventory>(root, `${DATA}/flags.json`);
  return [...headerLines(inv), ...flagAndAnnotationLines(root), ...choiceLines(inv), ...metricLines(root), ...differenceLines(root)].join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(join(ROOT, PAGE), renderPage());
  process.stdout.write(`wrote ${PAGE}\n`);
}
