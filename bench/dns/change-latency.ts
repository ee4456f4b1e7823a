/**
 * Change-to-answer latency: how long after a manifest file changes does the embedded DNS server
 * answer with the new record? Runs `bin/hostwarden run` on a temp manifests directory, rewrites
 * one Service N times with a new IP, and polls the server over UDP every 5 ms until it answers
 * with that IP. Prints p50, p99 and max. Goal (issue 3): p99 <= 1 s.
 *
 *   npm run bench:dns-change            # 50 changes
 *   node --import tsx bench/dns/change-latency.ts --changes 200
 */
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { startHostwarden } from '../../test/support/hostwarden-process.ts';
import { loadBalancerService } from '../../test/support/manifests.ts';

const POLL_MS = 5;
const TIMEOUT_MS = 10_000;

function queryA(port: number, name: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const sock = createSocket('udp4');
    const timer = setTimeout(() => {
      sock.close();
      resolve(undefined);
    }, 500);
    sock.on('message', (msg) => {
      clearTimeout(timer);
      sock.close();
      const answer = dnsPacket.decode(msg).answers?.find((a) => a.type === 'A');
      resolve(answer === undefined || !('data' in answer) ? undefined : String(answer.data));
    });
    sock.send(dnsPacket.encode({ type: 'query', id: 1, flags: 0, questions: [{ type: 'A', name }] }), port, '127.0.0.1');
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--changes');
  const changes = at === -1 ? 50 : Number(process.argv[at + 1]);
  const root = await mkdtemp(join(tmpdir(), 'hw-change-'));
  const manifests = join(root, 'manifests');
  await mkdir(manifests);
  await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.1'));
  const hw = await startHostwarden([
    '--manifests-dir',
    manifests,
    '--embedded-data-dir',
    join(root, 'data'),
    '--embedded-zone',
    'example.org',
    '--min-event-sync-interval',
    '0s',
    '--log-level',
    'info',
  ]);
  try {
    await hw.waitForLog((l) => l['msg'] === 'changes committed to zone files');
    const latencies: number[] = [];
    for (let i = 0; i < changes; i++) {
      const ip = `198.51.100.${(i % 250) + 1}`;
      const start = performance.now();
      await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'www.example.org', ip));
      let seen = false;
      while (performance.now() - start < TIMEOUT_MS) {
        if ((await queryA(hw.dnsPort, 'www.example.org')) === ip) {
          seen = true;
          break;
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      if (!seen) throw new Error(`change ${i} (${ip}) not answered within ${TIMEOUT_MS} ms`);
      latencies.push(performance.now() - start);
    }
    latencies.sort((a, b) => a - b);
    const fmt = (ms: number): string => `${Math.round(ms)} ms`;
    console.log(`change-to-answer over ${changes} manifest edits (file write -> new A answer over UDP, polled every ${POLL_MS} ms)`);
    console.log(`  p50 ${fmt(percentile(latencies, 50))}   p99 ${fmt(percentile(latencies, 99))}   max ${fmt(latencies[latencies.length - 1] ?? NaN)}`);
    console.log(`  goal p99 <= 1000 ms: ${percentile(latencies, 99) <= 1000 ? 'met' : 'NOT met'}`);
  } finally {
    await hw.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
