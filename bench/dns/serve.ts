/**
 * A Hostwarden DNS server in its own process for bench.ts, so that the benchmark's own work
 * (spawning dnsperf, reading its output) never shares an event loop with the server under test,
 * just as BIND runs in its own process:
 *   node --import tsx bench/dns/serve.ts <native|dgram> <workers|inline> [packet cache entries, 0 = off]
 * Prints {"port":N} once listening; stops when stdin closes, printing the packet cache's hit rate
 * over the whole run (warm-up, answer check and every dnsperf run) to stderr.
 */
import { Registry } from 'prom-client';
import { DnsServer } from '../../src/dns/server/server.ts';
import { createLogger } from '../../src/log.ts';
import { benchZone } from './bench-zone.ts';

async function main(): Promise<void> {
  const engine = process.argv[2] === 'dgram' ? 'dgram' : 'native';
  const inline = process.argv[3] === 'inline';
  const workers = inline ? 0 : Number(process.argv[3] ?? 0);
  const metrics = new Registry();
  const packetCacheSize = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
  const server = new DnsServer({
    listen: ['127.0.0.1:0'],
    logger: createLogger('warn', 'json'),
    workers,
    inline,
    udpEngine: engine,
    metrics,
    ...(packetCacheSize === undefined ? {} : { packetCacheSize }),
  });
  server.zoneChanged(benchZone());
  const port = (await server.start()).addresses[0]?.udp.port ?? 0;
  process.stdout.write(`${JSON.stringify({ port, engine: server.udpEngine })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    hitRate(metrics)
      .then((line) => {
        if (line !== undefined) process.stderr.write(`${line}\n`);
      })
      .then(() => server.stop())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}

async function hitRate(metrics: Registry): Promise<string | undefined> {
  const values = (await metrics.getSingleMetric('hostwarden_dns_packet_cache_queries_total')?.get())?.values ?? [];
  const of = (result: string): number => values.find((v) => v.labels.result === result)?.value ?? 0;
  const hits = of('hit');
  const total = hits + of('miss');
  if (total === 0) return undefined;
  return `serve.ts: packet cache ${hits} hits of ${total} UDP queries (${((100 * hits) / total).toFixed(1)} %)`;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
