/**
 * Child process for test/embedded/crash-safety.test.ts: applies batches to an embedded provider in
 * a loop and prints `ack <n>` once batch n is acknowledged. The test kills it with SIGKILL at a
 * random moment and then checks that every acknowledged batch is on disk.
 *
 * Each batch touches every zone: it creates r<n>.<zone> and moves counter.<zone> to n (so a zone
 * file holding counter n must hold r<n> and no r<n+1>), and rewrites a large blob record so every
 * write takes long enough for the kill to land inside it.
 *
 * Usage: node --import tsx test/support/embedded-crash-writer.ts <dataDir> <zone>...
 */
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { EmbeddedProvider } from '../../src/provider/embedded/embedded.ts';
import { emptyChanges } from '../../src/plan/changes.ts';

const MAX_BATCHES = 100_000;
const MAX_RUNTIME_MS = 30_000;

async function main(): Promise<void> {
  const [dataDir, ...zones] = process.argv.slice(2);
  if (dataDir === undefined || zones.length === 0) throw new Error('usage: embedded-crash-writer <dataDir> <zone>...');
  // Never outlive the test: stop when the parent goes away or after a fixed time.
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
  setTimeout(() => process.exit(0), MAX_RUNTIME_MS).unref();

  const provider = await EmbeddedProvider.open({ dataDir, zones, logger: silentLogger() });
  const existing = await provider.records();
  const counters = new Map<string, Endpoint>();
  const blobs = new Map<string, Endpoint>();
  for (const ep of existing) {
    if (ep.dnsName.startsWith('counter.')) counters.set(ep.dnsName, ep);
    if (ep.dnsName.startsWith('blob.')) blobs.set(ep.dnsName, ep);
  }
  const start = Math.max(-1, ...[...counters.values()].map((ep) => Number(ep.targets[0]?.replace('n=', '') ?? -1))) + 1;
  process.stdout.write(`ready ${start}\n`);

  for (let n = start; n < start + MAX_BATCHES; n++) {
    const changes = emptyChanges();
    for (const zone of zones) {
      changes.create.push(newEndpoint({ dnsName: `r${n}.${zone}`, recordType: 'A', targets: [`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`] }));
      const replace = (map: Map<string, Endpoint>, name: string, target: string): void => {
        const next = newEndpoint({ dnsName: name, recordType: 'TXT', targets: [target] });
        const old = map.get(name);
        if (old === undefined) changes.create.push(next);
        else {
          changes.updateOld.push(old);
          changes.updateNew.push(next);
        }
        map.set(name, next);
      };
      replace(counters, `counter.${zone}`, `n=${n}`);
      replace(blobs, `blob.${zone}`, `${n}:${'x'.repeat(4000)}`);
    }
    await provider.applyChanges(changes);
    process.stdout.write(`ack ${n}\n`);
  }
  await provider.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
