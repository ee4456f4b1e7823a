/**
 * A Hostwarden DNS server in its own process for bench.ts, so that the benchmark's own work
 * (spawning dnsperf, reading its output) never shares an event loop with the server under test,
 * just as BIND runs in its own process:
 *   node --import tsx bench/dns/serve.ts <native|dgram> <workers|inline>
 * Prints {"port":N} once listening; stops when stdin closes.
 */
import { DnsServer } from '../../src/dns/server/server.ts';
import { createLogger } from '../../src/log.ts';
import { benchZone } from './bench-zone.ts';

async function main(): Promise<void> {
  const engine = process.argv[2] === 'dgram' ? 'dgram' : 'native';
  const inline = process.argv[3] === 'inline';
  const workers = inline ? 0 : Number(process.argv[3] ?? 0);
  const server = new DnsServer({ listen: ['127.0.0.1:0'], logger: createLogger('warn', 'json'), workers, inline, udpEngine: engine });
  server.zoneChanged(benchZone());
  const port = (await server.start()).addresses[0]?.udp.port ?? 0;
  process.stdout.write(`${JSON.stringify({ port, engine: server.udpEngine })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
