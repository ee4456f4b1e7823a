/**
 * Cost of syncing Route53: API calls (reads and writes) and wall time for 20k records in 10
 * hosted zones in the emulator, through the Controller and the TXT registry with the provider's
 * defaults (5 requests/s, 1s between batches of a zone, records cached between syncs):
 *
 *   first sync · steady state · one Service changed · 10k changes · a restart over the full zones
 *
 *   npm run bench:route53
 *   node --import tsx bench/route53/bench.ts --records 2000 --zones 4     # quicker
 *
 * Anchor: external-dns reported ≈ 67 ListResourceRecordSets calls per sync for 20k records
 * (300 record sets a page), every sync, changed or not.
 */
import { parseArgs } from 'node:util';
import type { Controller } from '../../src/controller/controller.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { NoopRegistry } from '../../src/registry/noop/noop-registry.ts';
import type { Registry } from '../../src/registry/registry.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { awsFlags, isolateAwsSdk } from '../../test/support/aws/provider.ts';
import { startAwsEmulators } from '../../test/support/aws/start.ts';
import type { AwsEmulators } from '../../test/support/aws/start.ts';
import { FakeSource } from '../../test/support/fakes.ts';
import { Route53Provider } from '../../src/provider/aws/route53.ts';
import { testController } from '../../test/support/controller.ts';

const { values } = parseArgs({
  options: { records: { type: 'string', default: '20000' }, zones: { type: 'string', default: '10' }, rate: { type: 'string', default: '5' } },
});
const RECORDS = Number(values.records);
const ZONES = Number(values.zones);

isolateAwsSdk();

function service(i: number, target = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`): Endpoint {
  return newEndpoint({ dnsName: `svc-${i}.zone${i % ZONES}.bench`, recordType: 'A', targets: [target], labels: { resource: `service/default/svc-${i}` } });
}

function controller(source: FakeSource, registry: Registry): Controller {
  return testController(source, registry);
}

async function provider(e: AwsEmulators, zoneNameFilter: string): Promise<Route53Provider> {
  const flags = awsFlags(e, { 'aws-requests-per-second': values.rate, 'aws-batch-change-interval': '1s', 'zone-name-filter': zoneNameFilter });
  return Route53Provider.fromConfig({ flags, domainFilters: [], excludeDomains: [] }, { logger: silentLogger() });
}

interface Row {
  scenario: string;
  reads: number;
  writes: number;
  ms: number;
  changes: number;
}

async function measure(e: AwsEmulators, scenario: string, run: () => Promise<number>): Promise<Row> {
  e.aws.resetCounts();
  const t0 = performance.now();
  const changes = await run();
  const ms = Math.round(performance.now() - t0);
  const writes = e.aws.count('route53', 'ChangeResourceRecordSets');
  const row = { scenario, reads: e.aws.count('route53') - writes, writes, ms, changes };
  const lists = e.aws.count('route53', 'ListResourceRecordSets');
  process.stdout.write(
    `${scenario.padEnd(52)} reads ${String(row.reads).padStart(4)} (ListResourceRecordSets ${String(lists).padStart(3)})  writes ${String(writes).padStart(4)}  planned changes ${String(changes).padStart(6)}  ${String(ms).padStart(7)} ms\n`,
  );
  return row;
}

const e = await startAwsEmulators();
try {
  for (let z = 0; z < ZONES; z++) {
    e.route53.createZone(`zone${z}.bench`);
    e.route53.createZone(`flat${z}.bench`);
  }
  process.stdout.write(`Route53 emulator: ${RECORDS} records in ${ZONES} zones, TXT registry, ${values.rate} requests/s, batch interval 1s\n`);
  process.stdout.write('anchor: external-dns reported ≈ 67 ListResourceRecordSets calls per sync for 20k records (every sync)\n\n');
  const countChanges = (r: { changes: { create: unknown[]; updateNew: unknown[]; delete: unknown[] } }): number =>
    r.changes.create.length + r.changes.updateNew.length + r.changes.delete.length;
  const p = await provider(e, Array.from({ length: ZONES }, (_, z) => `zone${z}.bench`).join(','));
  const registry = new TXTRegistry(p, { ownerId: 'bench', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
  const source = new FakeSource(Array.from({ length: RECORDS }, (_, i) => service(i)));
  const c = controller(source, registry);

  await measure(e, `first sync (${RECORDS} Services → records + TXT)`, async () => countChanges(await c.runOnce()));
  await measure(e, 'steady state (nothing changed)', async () => countChanges(await c.runOnce()));
  source.desired[7] = service(7, '192.0.2.77');
  await measure(e, 'one Service changed', async () => countChanges(await c.runOnce()));
  // 10k Route53 changes: half as many new Services, each a record plus its ownership TXT.
  const half = Math.floor(RECORDS / 4);
  source.desired.push(...Array.from({ length: half }, (_, i) => service(RECORDS + i)));
  await measure(e, `${half * 2} changes: ${half} Services added (A + TXT each)`, async () => countChanges(await c.runOnce()));

  // A restart: a new process knows nothing and lists every zone once, as external-dns does on every sync.
  const restarted = await provider(e, Array.from({ length: ZONES }, (_, z) => `zone${z}.bench`).join(','));
  const again = controller(
    source,
    new TXTRegistry(restarted, { ownerId: 'bench', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() }),
  );
  await measure(e, `restart: first sync over ${source.desired.length} Services`, async () => countChanges(await again.runOnce()));

  // The same volume without ownership records: only the record values count against the limits.
  const flat = await provider(e, Array.from({ length: ZONES }, (_, z) => `flat${z}.bench`).join(','));
  const flatSource = new FakeSource(
    Array.from({ length: half * 2 }, (_, i) =>
      newEndpoint({ dnsName: `r-${i}.flat${i % ZONES}.bench`, recordType: 'A', targets: [`10.1.${(i >> 8) & 255}.${i & 255}`] }),
    ),
  );
  const fc = controller(flatSource, new NoopRegistry(flat));
  await measure(e, `${half * 2} changes: ${half * 2} A records, --registry noop`, async () => countChanges(await fc.runOnce()));
} finally {
  await e.stop();
}
