/**
 * Planner benchmark: plan N desired endpoints against N current records that carry TXT
 * ownership labels (as the registry returns them), and the same through the TXT registry over
 * the inmemory provider (2N provider records: each record and its ownership TXT).
 * Each size runs in its own child process so peak RSS is that size's own.
 *
 *   npm run bench:plan            # 10k and 100k
 *   node --import tsx bench/plan.bench.ts --size 50000
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DomainFilter } from '../src/endpoint/domain-filter.ts';
import { newEndpoint } from '../src/endpoint/endpoint.ts';
import type { Endpoint } from '../src/endpoint/endpoint.ts';
import { silentLogger } from '../src/log.ts';
import { calculatePlan } from '../src/plan/plan.ts';
import { InMemoryProvider } from '../src/provider/inmemory/inmemory.ts';
import { TXTRegistry } from '../src/registry/txt/txt-registry.ts';

const GOAL_MS = 500;
const GOAL_MB = 300;

function ip(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

/** 90% unchanged, 5% changed targets, 5% new; 5% of current records are stale (deleted). */
function workload(n: number): { desired: Endpoint[]; current: Endpoint[] } {
  const desired: Endpoint[] = [];
  const current: Endpoint[] = [];
  for (let i = 0; i < n; i++) {
    const name = `host-${i}.apps.example.org`;
    const resource = `service/ns-${i % 50}/svc-${i}`;
    const mod = i % 20;
    desired.push(newEndpoint({ dnsName: name, recordType: 'A', targets: [ip(i)], recordTTL: 300, labels: { resource } }));
    if (mod === 0) continue; // new
    const target = mod === 1 ? ip(i + 1) : ip(i);
    current.push(newEndpoint({ dnsName: name, recordType: 'A', targets: [target], recordTTL: 300, labels: { owner: 'bench', resource } }));
  }
  for (let i = 0; i < n / 20; i++) {
    current.push(
      newEndpoint({
        dnsName: `stale-${i}.apps.example.org`,
        recordType: 'A',
        targets: [ip(i)],
        recordTTL: 300,
        labels: { owner: 'bench', resource: `service/old/s-${i}` },
      }),
    );
  }
  return { desired, current };
}

async function runSize(n: number, mode: string): Promise<void> {
  const { desired, current } = workload(n);
  const input = {
    current,
    desired,
    ownerId: 'bench',
    policy: 'sync' as const,
    managedRecordTypes: ['A', 'AAAA', 'CNAME'] as const,
    excludeRecordTypes: [],
    domainFilter: new DomainFilter({ include: ['example.org'] }),
  };
  calculatePlan({ ...input, current: current.slice(0, 1000), desired: desired.slice(0, 1000) }); // warm-up
  const t0 = process.hrtime.bigint();
  const { changes } = calculatePlan(input);
  const planMs = Number(process.hrtime.bigint() - t0) / 1e6;
  // A running controller plans every interval: the later runs show the steady state.
  let steadyMs = Infinity;
  for (let i = 0; i < 3; i++) {
    const t = process.hrtime.bigint();
    calculatePlan(input);
    steadyMs = Math.min(steadyMs, Number(process.hrtime.bigint() - t) / 1e6);
  }
  if (mode === 'plan') {
    const rss = Math.round(process.resourceUsage().maxRSS / 1024);
    console.log(
      JSON.stringify({
        n,
        planMs: Math.round(planMs),
        steadyMs: Math.round(steadyMs),
        create: changes.create.length,
        update: changes.updateNew.length,
        delete: changes.delete.length,
        peakRssMb: rss,
      }),
    );
    return;
  }

  // The same through the TXT registry: decode ownership from 2N provider records, then plan.
  const provider = new InMemoryProvider({ zones: ['example.org'] });
  const registry = new TXTRegistry(provider, { ownerId: 'bench', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
  await registry.applyChanges({ create: current, updateOld: [], updateNew: [], delete: [] });
  const t1 = process.hrtime.bigint();
  const records = await registry.records();
  const t2 = process.hrtime.bigint();
  calculatePlan({ ...input, current: records });
  const t3 = process.hrtime.bigint();
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(
    JSON.stringify({
      n,
      registryReadMs: Math.round(Number(t2 - t1) / 1e6),
      registryPlanMs: Math.round(Number(t3 - t2) / 1e6),
      peakRssMb: Math.round(rssMb),
    }),
  );
}

function main(): void {
  const sizeArg = process.argv.indexOf('--size');
  if (sizeArg !== -1) {
    void runSize(Number(process.argv[sizeArg + 1]), process.argv[sizeArg + 2] ?? 'plan');
    return;
  }
  const self = fileURLToPath(import.meta.url);
  console.log('planner benchmark: N desired vs N current records with TXT ownership (90% same, 5% changed, 5% new, 5% stale)');
  const child = (n: number, mode: string): Record<string, number> | undefined => {
    const out = spawnSync(process.execPath, ['--import', 'tsx', self, '--size', String(n), mode], { encoding: 'utf8' });
    if (out.status !== 0) {
      console.error(out.stderr);
      process.exitCode = 1;
      return undefined;
    }
    return JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}') as Record<string, number>;
  };
  const cell = (v: number | undefined, w: number): string => String(v).padStart(w);
  console.log('planner alone (current records already carry owner labels):');
  console.log('  size     first plan(ms)  steady plan(ms)  create  update  delete  peak RSS(MB)');
  for (const n of [10_000, 100_000]) {
    const r = child(n, 'plan');
    if (r === undefined) return;
    console.log(
      `  ${String(n).padEnd(8)} ${cell(r['planMs'], 14)}  ${cell(r['steadyMs'], 15)}  ${cell(r['create'], 6)}  ${cell(r['update'], 6)}  ${cell(r['delete'], 6)}  ${cell(r['peakRssMb'], 12)}`,
    );
    if (n === 100_000) {
      const ok = (r['planMs'] ?? Infinity) <= GOAL_MS && (r['peakRssMb'] ?? Infinity) <= GOAL_MB;
      console.log(`  goal for 100k: first plan <= ${GOAL_MS} ms and peak RSS <= ${GOAL_MB} MB: ${ok ? 'met' : 'NOT met'}`);
    }
  }
  console.log('through the TXT registry (inmemory provider holding each record and its ownership TXT):');
  console.log('  size     registry read(ms)  plan(ms)  peak RSS(MB)');
  for (const n of [10_000, 100_000]) {
    const r = child(n, 'registry');
    if (r === undefined) return;
    console.log(`  ${String(n).padEnd(8)} ${cell(r['registryReadMs'], 17)}  ${cell(r['registryPlanMs'], 8)}  ${cell(r['peakRssMb'], 12)}`);
  }
}

main();
