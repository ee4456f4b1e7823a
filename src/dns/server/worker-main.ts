/**
 * Entry point of a DNS worker process (see cluster.ts): receives its configuration and packed zones
 * from the primary over IPC and serves the port with a LocalDnsServer (its own SO_REUSEPORT UDP
 * socket with the native engine, the primary's shared handles otherwise).
 */
import { createLogger } from '../../log.ts';
import type { FromWorker, ToWorker } from './cluster.ts';
import { LocalDnsServer } from './local-server.ts';
import { QueryCounters } from './metrics.ts';
import { loadNativeUdp } from './native/udp-native.ts';
import { isTsigAlgorithm } from '../tsig.ts';
import type { TsigKey } from '../tsig.ts';
import { ZoneReader } from './zone-pack.ts';

const METRICS_INTERVAL_MS = 1000;

function send(msg: FromWorker): void {
  process.send?.(msg);
}

function fail(err: unknown): void {
  send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}

function main(): void {
  let server: LocalDnsServer | undefined;
  const early: ToWorker[] = [];
  const counters = new QueryCounters();
  const apply = (s: LocalDnsServer, msg: ToWorker): void => {
    if (msg.type === 'zone') s.zoneChanged(msg.origin, msg.seq, () => new ZoneReader(msg.packed));
    else if (msg.type === 'remove') s.zoneRemoved(msg.origin, msg.seq);
  };
  process.on('message', (msg: ToWorker) => {
    if (msg.type === 'config') {
      const c = msg.config;
      const logger = createLogger(c.logLevel, 'json').child({ worker: process.pid });
      const keys: TsigKey[] = c.tsigKeys.flatMap((k) =>
        isTsigAlgorithm(k.algorithm) ? [{ name: k.name, algorithm: k.algorithm, secret: Buffer.from(k.secret, 'base64') }] : [],
      );
      try {
        const native = c.udpEngine === 'native' ? loadNativeUdp() : undefined;
        if (c.udpEngine === 'native' && native === undefined) throw new Error('--dns-udp-engine: the native UDP addon is not built');
        server = new LocalDnsServer({
          listen: c.listen,
          allowTransfer: c.allowTransfer,
          tsigKeys: keys,
          udpSize: c.udpSize,
          ixfrJournal: c.ixfrJournal,
          tcp: c.tcp,
          packetCache: c.packetCache,
          native,
          counters,
          logger,
          // Each worker's own socket on the shared port; ignored by the dgram engine, which shares the primary's.
          reusePort: true,
          onApplied: (applied) => send({ type: 'applied', applied }),
        });
      } catch (err) {
        return fail(err);
      }
      const s = server;
      for (const m of early.splice(0)) apply(s, m);
      s.start().then((addresses) => send({ type: 'ready', addresses }), fail);
      setInterval(() => send({ type: 'metrics', snapshot: counters.snapshot() }), METRICS_INTERVAL_MS).unref();
    } else if (msg.type === 'zone' || msg.type === 'remove') {
      if (server === undefined) early.push(msg);
      else apply(server, msg);
    } else if (msg.type === 'stop') {
      const done = (): void => process.exit(0);
      if (server === undefined) done();
      else server.stop().then(done, done);
    }
  });
  process.on('disconnect', () => process.exit(0));
  // Messages sent before this process listens are lost, so the primary waits for this one.
  send({ type: 'hello' });
}

main();
