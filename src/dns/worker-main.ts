/**
 * Entry point of a DNS worker process (see cluster.ts): receives its configuration and zones from
 * the primary over IPC and serves the port with an in-process DnsServer (its own SO_REUSEPORT UDP
 * socket with the native engine, the primary's shared handles otherwise).
 */
import { createLogger } from '../log.ts';
import type { ZoneContent } from './zone-content.ts';
import type { FromWorker, ToWorker } from './cluster.ts';
import { DnsServer } from './server.ts';
import { isTsigAlgorithm } from './tsig.ts';
import type { TsigKey } from './tsig.ts';

const METRICS_INTERVAL_MS = 1000;

function send(msg: FromWorker): void {
  process.send?.(msg);
}

function main(): void {
  let server: DnsServer | undefined;
  const early: ZoneContent[] = [];
  process.on('message', (msg: ToWorker) => {
    if (msg.type === 'config') {
      const c = msg.config;
      const logger = createLogger(c.logLevel, 'json').child({ worker: process.pid });
      const keys: TsigKey[] = c.tsigKeys.flatMap((k) =>
        isTsigAlgorithm(k.algorithm) ? [{ name: k.name, algorithm: k.algorithm, secret: Buffer.from(k.secret, 'base64') }] : []);
      const s = new DnsServer({
        listen: c.listen, allowTransfer: c.allowTransfer, tsigKeys: keys, udpSize: c.udpSize, logger,
        // Each worker's own socket on the shared port; ignored by the dgram engine, which shares the primary's.
        udpEngine: c.udpEngine, reusePort: true,
        ...(c.tcpIdleTimeoutMs === undefined ? {} : { tcpIdleTimeoutMs: c.tcpIdleTimeoutMs }),
      });
      server = s;
      for (const z of early.splice(0)) s.zoneChanged(z);
      s.start().then(
        (r) => send({ type: 'ready', addresses: r.addresses }),
        (err: unknown) => {
          send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
          process.exit(1);
        },
      );
      setInterval(() => send({ type: 'metrics', snapshot: s.takeCounters() }), METRICS_INTERVAL_MS).unref();
    } else if (msg.type === 'zone') {
      if (server === undefined) early.push(msg.zone);
      else server.zoneChanged(msg.zone);
    } else if (msg.type === 'remove') {
      server?.zoneRemoved(msg.origin);
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
