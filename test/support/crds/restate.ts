/**
 * Restates an upstream CRD YAML file as the JSON test/support/crds holds: the served versions only
 * (name, served, storage, deprecated, subresources, schema), descriptions dropped, the upstream
 * file named in metadata.annotations["hostwarden.test/source"].
 *
 *   node --import tsx test/support/crds/restate.ts <project> <upstream.yaml> <source-url>
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

type Obj = Record<string, unknown>;

/** Drops documentation strings; a field named `description` (a schema, not a string) stays. */
function withoutDescriptions(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutDescriptions);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v as Obj)
      .filter(([k, x]) => !(k === 'description' && typeof x === 'string'))
      .map(([k, x]) => [k, withoutDescriptions(x)]),
  );
}

export function restate(upstream: Obj, source: string): Obj {
  const meta = upstream.metadata as Obj;
  const spec = upstream.spec as Obj;
  const upstreamAnnotations = (meta.annotations ?? {}) as Record<string, string>;
  const keep = Object.fromEntries(Object.entries(upstreamAnnotations).filter(([k]) => k.startsWith('gateway.networking.k8s.io/')));
  const versions = (spec.versions as Obj[])
    .filter((v) => v.served === true)
    .map((v) => {
      const out: Obj = { name: v.name, served: true, storage: v.storage === true };
      if (v.deprecated === true) out.deprecated = true;
      if (v.subresources !== undefined) out.subresources = v.subresources;
      out.schema = withoutDescriptions(v.schema);
      return out;
    });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: meta.name, annotations: { 'hostwarden.test/source': source, ...keep } },
    spec: { group: spec.group, names: spec.names, scope: spec.scope, versions },
  };
}

function main(argv: string[]): void {
  const [project, file, source] = argv;
  if (project === undefined || file === undefined || source === undefined) throw new Error('usage: restate.ts <project> <upstream.yaml> <source-url>');
  const crd = restate(parse(readFileSync(file, 'utf8')) as Obj, source);
  const out = join(dirname(fileURLToPath(import.meta.url)), project, `${String((crd.metadata as Obj).name)}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(crd, null, 1)}\n`);
  process.stdout.write(`${out}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
