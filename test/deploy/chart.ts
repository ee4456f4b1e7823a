/**
 * Renders a chart (charts/hostwarden, charts/hostwarden-gardener-extension) the way `helm template` does, with the Go template subset in
 * go-template.ts: values.yaml merged with overrides, checked against values.schema.json, every
 * template rendered, the YAML documents parsed.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { TemplateSet } from './go-template.ts';
import { checkSchema } from './schema.ts';
import type { Schema, SchemaResult } from './schema.ts';

export interface Release {
  name: string;
  namespace: string;
}

export interface RenderedChart {
  values: Record<string, unknown>;
  /** Every object the templates produce, in file order. */
  objects: Record<string, unknown>[];
  /** Objects under crds/, which Helm installs before the templates and never upgrades. */
  crds: Record<string, unknown>[];
  notes: string;
  valuesCheck: SchemaResult;
}

type Values = Record<string, unknown>;

function isMap(v: unknown): v is Values {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Helm's coalescing: maps merge, anything else replaces, null deletes a default. */
export function mergeValues(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete out[k];
    else if (isMap(v) && isMap(out[k])) out[k] = mergeValues(out[k], v);
    else out[k] = v;
  }
  return out;
}

export function parseYamlDocuments(text: string, where: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${where}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isMap(value)) throw new Error(`${where}: a document is not a mapping`);
    out.push(value);
  }
  return out;
}

export function renderChart(dir: string, overrides: Values, release: Release): RenderedChart {
  const chart = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8')) as Values;
  const defaults = parse(readFileSync(join(dir, 'values.yaml'), 'utf8')) as Values;
  const schema = JSON.parse(readFileSync(join(dir, 'values.schema.json'), 'utf8')) as Schema;
  const values = mergeValues(defaults, overrides);
  const valuesCheck = checkSchema(schema, values);
  const data = {
    Values: values,
    Release: { Name: release.name, Namespace: release.namespace, Service: 'Helm', IsInstall: true, IsUpgrade: false },
    Chart: { Name: chart['name'], Version: chart['version'], AppVersion: chart['appVersion'] },
  };

  const set = new TemplateSet();
  const templatesDir = join(dir, 'templates');
  const files = readdirSync(templatesDir).sort();
  // Helpers first, so every file sees every define, as in Helm.
  for (const f of files) {
    set.add(f, readFileSync(join(templatesDir, f), 'utf8'));
  }
  const objects: Record<string, unknown>[] = [];
  for (const f of files) {
    if (f.startsWith('_') || !f.endsWith('.yaml')) continue;
    objects.push(...parseYamlDocuments(set.render(f, data), `templates/${f}`));
  }
  const notes = files.includes('NOTES.txt') ? set.render('NOTES.txt', data) : '';
  const crds: Record<string, unknown>[] = [];
  // A chart without crds/ (the Gardener extension's: Gardener manages the CRDs it needs).
  for (const f of existsSync(join(dir, 'crds')) ? readdirSync(join(dir, 'crds')).sort() : []) {
    crds.push(...parseYamlDocuments(readFileSync(join(dir, 'crds', f), 'utf8'), `crds/${f}`));
  }
  return { values, objects, crds, notes, valuesCheck };
}
