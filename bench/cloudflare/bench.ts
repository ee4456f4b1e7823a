/**
 * Cost of syncing Cloudflare: API calls by route and wall time for 10k Services (each an A record
 * plus its ownership TXT record: 20k Cloudflare records) in 5 zones of the Cloudflare API emulator,
 * through the Controller and the TXT registry, with the provider as the CLI builds it
 * (--cloudflare-dns-records-per-page 5000, --batch-change-size 200, records cached 5m):
 *
 *   first sync · steady state · one Service changed and the sync after it · cache expired ·
 *   1,000 records changed across the zones · 1,000 records changed in one zone (Free, then Pro)
 *
 *   npm run bench:cloudflare
 *   node --import tsx bench/cloudflare/bench.ts --records 2000     # quicker
 *
 * The provider's own pauses (its client-side rate limit and --batch-change-interval) are recorded,
 * not slept, and printed beside the wall time. There is no Go build of external-dns here, so its
 * column is the call count derived from its code (provider/cloudflare at the commit in
 * /work/.mirror), not a measurement.
 */
import { parseArgs as parseCommandLine } from 'node:util';
import { FlagValues } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import type { Controller } from '../../src/controller/controller.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { CloudflareProvider } from '../../src/provider/cloudflare/cloudflare.ts';
import { CLOUDFLARE_FLAGS } from '../../src/provider/cloudflare/flags.ts';
import { ZONE_FILTER_FLAGS } from '../../src/provider/zone-filter.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { TRANSLATE_FLAGS } from '../../src/source/translate/flags.ts';
import { startCloudflareEmulator } from '../../test/support/cloudflare/emulator.ts';
import type { CloudflareEmulator } from '../../test/support/cloudflare/emulator.ts';
import { testController } from '../../test/support/controller.ts';
import { FakeSource } from '../../test/support/fakes.ts';

const { values } = parseCommandLine({
  options: { records: { type: 'string', default: '10000' }, zones: { type: 'string', default: '5' }, 'per-page': { type: 'string', default: '5000' } },
});
const RECORDS = Number(values.records);
const ZONES = Number(values.zones);
const PER_PAGE = Number(values['per-page']);
/** Cloudflare's batch limit per plan ("Batch record changes": Free 200; Pro, Business, Enterprise 3,500). */
const FREE_BATCH = 200;

const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
function service(zone: string, i: number, target = ip(i)): Endpoint {
  return newEndpoint({ dnsName: `svc-${i}.${zone}`, recordType: 'A', targets: [target], labels: { resource: `service/default/svc-${i}` } });
}

interface Setup {
  provider: CloudflareProvider;
  controller: Controller;
  source: FakeSource;
  /** Milliseconds the provider asked to pause (rate limit, batch interval) since the last reset. */
  paused: { ms: number };
}

async function setup(emu: CloudflareEmulator, domains: string[], desired: Endpoint[], args: string[] = []): Promise<Setup> {
  const paused = { ms: 0 };
  const argv = ['--cloudflare-dns-records-per-page', String(PER_PAGE), ...args];
  const flags = new FlagValues(parseArgs(argv, {}, [...FLAGS, ...TRANSLATE_FLAGS, ...CLOUDFLARE_FLAGS, ...ZONE_FILTER_FLAGS]).values);
  const provider = await CloudflareProvider.fromConfig(
    { flags, domainFilters: domains, excludeDomains: [] },
    {
      logger: silentLogger(),
      env: { CF_API_TOKEN: emu.token, CLOUDFLARE_BASE_URL: emu.baseURL },
      sleep: (ms) => ((paused.ms += ms), Promise.resolve()),
    },
  );
  const registry = new TXTRegistry(provider, { ownerId: 'bench', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
  const source = new FakeSource(desired);
  return { provider, controller: testController(source, registry), source, paused };
}

const pad = (s: string | number, n: number): string => String(s).padStart(n);

/** Runs one sync and prints its calls by route. `upstream`: external-dns's derived count, if any. */
async function measure(emu: CloudflareEmulator, s: Setup, scenario: string, run: () => Promise<unknown>, upstream?: string): Promise<Record<string, number>> {
  emu.calls.reset();
  s.paused.ms = 0;
  const t0 = performance.now();
  await run();
  const ms = Math.round(performance.now() - t0);
  const routes = emu.calls.byRoute();
  const reads = Object.entries(routes)
    .filter(([r]) => r.startsWith('GET '))
    .reduce((a, [, n]) => a + n, 0);
  const writes = emu.calls.total - reads;
  const paced = (s.paused.ms / 1000).toFixed(1);
  process.stdout.write(
    `${scenario.padEnd(58)} calls ${pad(emu.calls.total, 4)} (reads ${pad(reads, 3)}, writes ${pad(writes, 4)})  ${pad(ms, 6)} ms  paced ${pad(paced, 5)} s\n`,
  );
  const short = Object.entries(routes).map(([r, n]) => `${r.replace('/zones/:id/dns_records', '…/dns_records')} ${n}`);
  const throttled = emu.calls.throttled > 0 ? ` · 429s ${emu.calls.throttled}` : '';
  process.stdout.write(`    by route: ${short.length === 0 ? '(no call)' : short.join(' · ')}${throttled}\n`);
  if (upstream !== undefined) process.stdout.write(`    external-dns (derived, no cache): ${upstream}\n`);
  return routes;
}

/**
 * external-dns's calls for one sync, from provider/cloudflare (cloudflare.go, cloudflare_batch.go)
 * and cloudflare-go v7's auto-pager (packages/pagination: it stops only at an empty page, so a
 * listing of n items costs ceil(n / per page) + 1 requests). Records() lists the zones and every
 * zone's records on every sync (no cache); ApplyChanges lists the zones again and, per zone with
 * changes, its records again, then sends ceil(ops / --batch-change-size) batches. A changed
 * address is two operations (delete the old value, post the new one), and its TXT registry also
 * rewrites the ownership TXT record of every updated record (registry/txt ApplyChanges): three
 * operations per changed Service.
 */
function upstreamCalls(recordsPerZone: number, zones: number, opsPerZone: number[] = [], batch = FREE_BATCH): string {
  return [100, PER_PAGE].map((perPage) => `per page ${perPage}: ${upstreamAt(recordsPerZone, zones, perPage, opsPerZone, batch)}`).join(' · ');
}

function upstreamAt(recordsPerZone: number, zones: number, perPage: number, opsPerZone: number[], batch: number): string {
  const zonesList = Math.ceil(zones / 20) + 1; // zones listed 20 a page (the API's default)
  const recordsList = Math.ceil(recordsPerZone / perPage) + 1;
  const reads = zonesList + zones * recordsList;
  const changed = opsPerZone.filter((n) => n > 0);
  if (changed.length === 0) return `${reads} (reads ${reads}, writes 0)`;
  const writes = changed.reduce((a, n) => a + Math.ceil(n / batch), 0);
  const more = zonesList + changed.length * recordsList;
  return `${reads + more + writes} (reads ${reads + more}, writes ${writes})`;
}

const emu = await startCloudflareEmulator();
try {
  const zones = Array.from({ length: ZONES }, (_, z) => `zone${z}.bench`);
  const zoneIds = zones.map((z) => emu.addZone(z));
  emu.addZone('mixed-free.bench');
  const perZone = Math.ceil(RECORDS / ZONES);
  process.stdout.write(
    `Cloudflare emulator: ${RECORDS} Services (A + ownership TXT: ${RECORDS * 2} records) in ${ZONES} Free zones, ` +
      `--cloudflare-dns-records-per-page ${PER_PAGE}, --batch-change-size 200, records cache 5m\n` +
      `Cloudflare's limits: 1,200 requests / 5 min per user; batch of 200 changes on Free, 3,500 on Pro and above\n\n`,
  );
  const desired = Array.from({ length: RECORDS }, (_, i) => service(zones[i % ZONES] as string, i));
  emu.calls.reset();
  const s = await setup(emu, zones, desired);
  process.stdout.write(`start-up (zone list)${''.padEnd(38)} calls ${pad(emu.calls.total, 4)}  ${JSON.stringify(emu.calls.byRoute())}\n`);
  const recordsPerZone = perZone * 2;

  await measure(
    emu,
    s,
    `first sync (${RECORDS} Services → ${RECORDS * 2} records)`,
    () => s.controller.runOnce(),
    upstreamCalls(0, ZONES, Array(ZONES).fill(recordsPerZone)),
  );
  await measure(emu, s, 'steady state (nothing changed)', () => s.controller.runOnce(), upstreamCalls(recordsPerZone, ZONES));
  s.source.desired[7] = service(zones[7 % ZONES] as string, 7, '192.0.2.77');
  await measure(emu, s, 'one Service changed', () => s.controller.runOnce(), upstreamCalls(recordsPerZone, ZONES, [3]));
  await measure(emu, s, 'the sync after our own change', () => s.controller.runOnce(), upstreamCalls(recordsPerZone, ZONES));
  s.provider.invalidate();
  await measure(emu, s, 'cache expired (--cloudflare-records-cache-duration)', () => s.controller.runOnce(), upstreamCalls(recordsPerZone, ZONES));
  // The same listing with the flag's default page size (100), as a new process would make it.
  const small = await setup(emu, zones, s.source.desired, ['--cloudflare-dns-records-per-page', '100']);
  await measure(emu, small, 'restart with --cloudflare-dns-records-per-page 100 (default)', () => small.controller.runOnce());

  // 1,000 records: 1,000 Services get a new address, 200 per zone. Each is two record operations,
  // as in external-dns (delete the old value, post the new one); the TXT records stay.
  const renumber = (src: FakeSource, base: number): void => {
    for (let i = 0; i < 1000 && i < RECORDS; i++) src.desired[i] = service(zones[i % ZONES] as string, i, `172.${base}.${i >> 8}.${i & 255}`);
  };
  renumber(s.source, 16);
  const ops = Array(ZONES).fill(3000 / ZONES);
  await measure(emu, s, '1,000 records changed, Free zones (200 a batch)', () => s.controller.runOnce(), upstreamCalls(recordsPerZone, ZONES, ops));
  await measure(emu, s, 'the sync after it', () => s.controller.runOnce());

  // The same zones on Pro (3,500 changes a batch), a new process with --batch-change-size 3500.
  for (const id of zoneIds) emu.configureZone(id, { plan: 'pro' });
  const pro = await setup(emu, [...zones, 'mixed-free.bench'], s.source.desired, ['--batch-change-size', '3500']);
  await measure(emu, pro, 'restart: a new process, zones now Pro (lists only)', () => pro.controller.runOnce(), upstreamCalls(recordsPerZone, ZONES));
  renumber(pro.source, 17);
  await measure(
    emu,
    pro,
    '1,000 records changed, Pro zones, --batch-change-size 3500',
    () => pro.controller.runOnce(),
    upstreamCalls(recordsPerZone, ZONES, ops, 3500),
  );
  // The same account also has a Free zone: its batches must stay within 200.
  pro.source.desired.push(...Array.from({ length: 500 }, (_, i) => service('mixed-free.bench', i)));
  await measure(
    emu,
    pro,
    '500 Services (1,000 records) into a Free zone, same process',
    () => pro.controller.runOnce(),
    'a batch of 1,000 is refused on Free (limit 200) and replayed as 1,000 single creates: 1,001 writes plus its reads',
  );
} finally {
  await emu.close();
}
