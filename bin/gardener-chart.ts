/**
 * Packs charts/hostwarden-gardener-extension the way `helm package` lays it out (every file under
 * `<chart name>/`) into a reproducible .tgz (sorted paths, mode 0644, uid/gid 0, mtime 0, gzip
 * without a timestamp), and writes deploy/gardener/controller-deployment.yaml with that archive as
 * `helm.rawChart`. test/deploy/gardener.test.ts checks the committed file against the chart.
 *
 *   node --import tsx bin/gardener-chart.ts          # rewrites deploy/gardener/controller-deployment.yaml
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { parse, stringify } from 'yaml';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const GARDENER_CHART_DIR = join(ROOT, 'charts/hostwarden-gardener-extension');
export const CONTROLLER_DEPLOYMENT_FILE = join(ROOT, 'deploy/gardener/controller-deployment.yaml');
/** The example next to provider-aws: Route53 served under a type name of Hostwarden's own. */
export const ALIASED_DEPLOYMENT_FILE = join(ROOT, 'deploy/gardener/example/20-controller-deployment-route53.yaml');
/** The ControllerRegistration's (and so the Helm release's) name. */
export const REGISTRATION_NAME = 'hostwarden';

const BLOCK = 512;

/** Chart files by path relative to the chart directory, sorted. */
export function chartFiles(dir: string): Map<string, Buffer> {
  const files = (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => f.split(sep).join('/'))
    .sort();
  return new Map(files.map((f) => [f, readFileSync(join(dir, f))]));
}

function header(path: string, size: number): Buffer {
  if (Buffer.byteLength(path) > 100) throw new Error(`${path}: tar paths here are at most 100 bytes`);
  const h = Buffer.alloc(BLOCK);
  const put = (text: string, at: number): void => void h.write(text, at, 'ascii');
  const octal = (n: number, width: number): string => `${n.toString(8).padStart(width - 1, '0')}\0`;
  h.write(path, 0, 'utf8');
  put(octal(0o644, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(0, 12), 136);
  put('        ', 148); // checksum field counts as spaces while summing
  put('0', 156);
  put('ustar\0', 257);
  put('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** A ustar archive of the files, each under `<prefix>/`. */
export function tar(files: ReadonlyMap<string, Buffer>, prefix: string): Buffer {
  const parts: Buffer[] = [];
  for (const [path, data] of files) {
    parts.push(header(`${prefix}/${path}`, data.length), data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** The files of a ustar archive (regular files only), by path. */
export function untar(archive: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let at = 0; at + BLOCK <= archive.length;) {
    const h = archive.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) break;
    const field = (from: number, len: number): string =>
      h
        .subarray(from, from + len)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const prefix = field(345, 155);
    const name = (prefix === '' ? '' : `${prefix}/`) + field(0, 100);
    const type = field(156, 1);
    if (type === '0' || type === '') out.set(name, Buffer.from(archive.subarray(at + BLOCK, at + BLOCK + size)));
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return out;
}

/** The chart as Helm's .tgz: gzip without a file name or timestamp, so the bytes depend on the files only. */
export function packChart(dir: string): Buffer {
  const chart = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8')) as { name: string };
  return gzipSync(tar(chartFiles(dir), chart.name), { level: 9 });
}

export function unpackChart(tgz: Buffer): Map<string, Buffer> {
  return untar(gunzipSync(tgz));
}

const IMAGE = { repository: 'hostwarden/hostwarden', tag: '0.1.0' };

/** The generated files and the ControllerDeployment each holds (name and helm.values). */
export const GENERATED: readonly { file: string; name: string; values: Record<string, unknown> }[] = [
  { file: CONTROLLER_DEPLOYMENT_FILE, name: REGISTRATION_NAME, values: { image: IMAGE, replicaCount: 1, dnsrecordTypes: ['rfc2136', 'powerdns'] } },
  {
    file: ALIASED_DEPLOYMENT_FILE,
    name: 'hostwarden-route53',
    values: { image: IMAGE, replicaCount: 2, dnsrecordTypes: ['hostwarden-aws-route53=aws-route53'], extraArgs: ['--aws-requests-per-second=2'] },
  },
];

/** A ControllerDeployment (core.gardener.cloud/v1) with the chart inline as helm.rawChart. */
export function controllerDeploymentYaml(tgz: Buffer, name: string, values: Record<string, unknown>): string {
  const doc = { apiVersion: 'core.gardener.cloud/v1', kind: 'ControllerDeployment', metadata: { name }, helm: { rawChart: tgz.toString('base64'), values } };
  return [
    '# Generated by `node --import tsx bin/gardener-chart.ts` from charts/hostwarden-gardener-extension',
    '# (helm.rawChart is that chart as a .tgz, base64). Edit the chart or the values in bin/gardener-chart.ts,',
    '# then run the script again; test/deploy/gardener.test.ts fails while this file is stale.',
    stringify(doc, { lineWidth: 0 }),
  ].join('\n');
}

function main(): void {
  const tgz = packChart(GARDENER_CHART_DIR);
  for (const g of GENERATED) {
    writeFileSync(g.file, controllerDeploymentYaml(tgz, g.name, g.values));
    process.stdout.write(`${g.file}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
