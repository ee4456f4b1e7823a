/**
 * `hostwarden run` on one large DNSEndpoint manifest (the embedded provider), and a plain A-record
 * lookup over UDP: shared by the answers-during-sync regression test and `bench:dns-under-sync`.
 */
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHostwarden } from './hostwarden-process.ts';
import type { RunningHostwarden } from './hostwarden-process.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { largeDnsEndpoint } from './manifests.ts';
import { aQuery } from './udp-prober.ts';

/** A zone of `count` A records `host-<i>.<origin>` → 10.x.y.z, for DnsServer tests that need size. */
export function hostsZone(origin: string, count: number, serial: number): ZoneContent {
  const rrsets = Array.from({ length: count }, (_, i) => ({
    name: `host-${i}.${origin}`,
    type: 'A' as const,
    ttl: 60,
    rdata: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`],
  }));
  return {
    origin,
    soa: { mname: `ns1.${origin}`, rname: `hostmaster.${origin}`, serial, refresh: 3600, retry: 600, expire: 86400, minimum: 300, ttl: 3600 },
    rrsets: [{ name: origin, type: 'NS', ttl: 3600, rdata: [`ns1.${origin}`] }, ...rrsets],
  };
}

export interface LargeZoneRun {
  hw: RunningHostwarden;
  /** The manifest: rewrite it to make a change. */
  file: string;
  stop(): Promise<void>;
}

/** Starts run on a manifest of `endpoints` A records in `zone` and waits until the zone is written and served. */
export async function startOnLargeZone(zone: string, endpoints: number, intervalMs: number, extra: readonly string[] = []): Promise<LargeZoneRun> {
  const root = await mkdtemp(join(tmpdir(), 'hw-large-zone-'));
  const manifests = join(root, 'manifests');
  await mkdir(manifests);
  const file = join(manifests, 'big.yaml');
  await writeFile(file, largeDnsEndpoint('big', zone, endpoints));
  const stop = async (hw?: RunningHostwarden): Promise<void> => {
    await hw?.stop();
    await rm(root, { recursive: true, force: true });
  };
  let hw: RunningHostwarden | undefined;
  try {
    hw = await startHostwarden(
      [
        '--manifests-dir',
        manifests,
        '--embedded-data-dir',
        join(root, 'data'),
        '--embedded-zone',
        zone,
        '--interval',
        `${intervalMs}ms`,
        '--min-event-sync-interval',
        '0s',
        '--log-level',
        'debug',
        ...extra,
      ],
      { timeoutMs: 120_000 },
    );
    await hw.waitForLog((l) => l['msg'] === 'changes committed to zone files', 300_000);
    await waitForAnswer(hw.dnsPort, `host-1.${zone}`, '10.0.0.1', 60_000);
  } catch (err) {
    await stop(hw);
    throw err;
  }
  const running = hw;
  return { hw: running, file, stop: () => stop(running) };
}

/** The first A record of the answer, or undefined (no answer within 500 ms, or none in it). */
export function answerOf(port: number, name: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      resolve(undefined);
    }, 500);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      // The question is echoed; the first answer follows it: pointer, type, class, TTL, length, address.
      const at = 12 + (aQuery(0, name).length - 12) + 12;
      resolve(m.readUInt16BE(6) > 0 && m.length >= at + 4 ? [...m.subarray(at, at + 4)].join('.') : undefined);
    });
    s.send(aQuery(1, name), port, '127.0.0.1');
  });
}

/** Milliseconds until `name` answers `ip`; throws after `limitMs` (polls every 20 ms). */
export async function waitForAnswer(port: number, name: string, ip: string, limitMs: number): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < limitMs) {
    if ((await answerOf(port, name)) === ip) return performance.now() - start;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${name} did not answer ${ip} within ${limitMs} ms`);
}
