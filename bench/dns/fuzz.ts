/**
 * Longer fuzzing of the query path: node --import tsx bench/dns/fuzz.ts [count=1000000] [seed]
 * Exits non-zero and prints the first failures (with the packet in hex) if anything goes wrong.
 */
import * as dnsPacket from 'dns-packet';
import { fuzz } from '../../test/dns/fuzz-packets.ts';

const count = Number(process.argv[2] ?? 1_000_000);
const seed = Number(process.argv[3] ?? Date.now() % 0x7fffffff);
const started = Date.now();
const stats = fuzz(count, seed, (b) => dnsPacket.decode(b));
const secs = (Date.now() - started) / 1000;
console.log(
  `seed ${seed}: ${stats.packets} packets, ${stats.replies} replies, ${stats.dropped} dropped, ${stats.failures.length} failures in ${secs.toFixed(1)} s`,
);
for (const f of stats.failures.slice(0, 10)) console.log(f);
if (stats.failures.length > 0) process.exitCode = 1;
