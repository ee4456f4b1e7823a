/**
 * End-to-end benchmark: `run --once` over a manifests directory of N objects (Services with a
 * hostname annotation and a load-balancer IP) into a fresh embedded zone store, then a second
 * `run --once` with nothing to change. Prints wall time and peak RSS of each run.
 *
 *   npm run bench:run-once              # 10k objects
 *   node --import tsx bench/run-once.bench.ts --objects 2000
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.ts';

const PER_FILE = 100;

async function child(args: string[]): Promise<void> {
  const t0 = process.hrtime.bigint();
  const code = await main({ argv: args, env: {}, stdout: process.stdout, stderr: process.stderr, onSignal: () => undefined });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(`${JSON.stringify({ code, ms: Math.round(ms), peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
}

async function writeManifests(dir: string, n: number): Promise<void> {
  for (let f = 0; f * PER_FILE < n; f++) {
    const docs: string[] = [];
    for (let i = f * PER_FILE; i < Math.min(n, (f + 1) * PER_FILE); i++) {
      docs.push(`apiVersion: v1
kind: Service
metadata:
  name: svc-${i}
  namespace: ns-${i % 20}
  annotations:
    external-dns.alpha.kubernetes.io/hostname: svc-${i}.apps.example.org
    external-dns.alpha.kubernetes.io/ttl: "120"
spec:
  type: LoadBalancer
status:
  loadBalancer:
    ingress:
      - ip: 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}
`);
    }
    await writeFile(join(dir, `services-${String(f).padStart(4, '0')}.yaml`), docs.join('---\n'));
  }
}

async function bench(): Promise<void> {
  const at = process.argv.indexOf('--objects');
  const n = at === -1 ? 10_000 : Number(process.argv[at + 1]);
  const root = await mkdtemp(join(tmpdir(), 'hw-bench-'));
  try {
    const manifests = join(root, 'manifests');
    await mkdir(manifests);
    await writeManifests(manifests, n);
    const args = [
      'run',
      '--once',
      '--log-level',
      'warn',
      '--manifests-dir',
      manifests,
      '--embedded-data-dir',
      join(root, 'data'),
      '--embedded-zone',
      'example.org',
      '--metrics-address',
      '',
      '--txt-owner-id',
      'bench',
    ];
    const self = fileURLToPath(import.meta.url);
    console.log(`run --once over ${n} Service objects in ${Math.ceil(n / PER_FILE)} files into the embedded store`);
    for (const label of ['first sync (creates every record)', 'second sync (nothing to change)']) {
      const out = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', ...args], { encoding: 'utf8' });
      const last = out.stdout.trim().split('\n').pop() ?? '{}';
      const r = JSON.parse(last) as { code: number; ms: number; peakRssMb: number };
      if (out.status !== 0 || r.code !== 0) {
        console.error(out.stderr);
        process.exitCode = 1;
        return;
      }
      console.log(`  ${label.padEnd(36)} ${String(r.ms).padStart(6)} ms   peak RSS ${r.peakRssMb} MB`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const childAt = process.argv.indexOf('--child');
if (childAt !== -1) await child(process.argv.slice(childAt + 1));
else await bench();
