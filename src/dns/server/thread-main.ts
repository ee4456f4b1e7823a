/**
 * Entry point of the DNS thread (see thread.ts): serves the configured addresses with a
 * LocalDnsServer on this thread's event loop, indexes the packed zones it is sent, and answers
 * requests for its counters. It logs through pino in JSON, each line posted to the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { LocalDnsServer } from './local-server.ts';
import { QueryCounters } from './metrics.ts';
import { loadNativeUdp } from './native/udp-native.ts';
import type { FromThread, ThreadConfig, ToThread } from './thread.ts';
import { isTsigAlgorithm } from '../tsig.ts';
import type { TsigKey } from '../tsig.ts';
import { ZoneReader } from './zone-pack.ts';

function main(): void {
  const port = parentPort;
  if (port === null) throw new Error('thread-main.ts runs as a worker thread (see thread.ts)');
  const send = (m: FromThread): void => port.postMessage(m);
  const config = workerData as ThreadConfig;
  const logger = pino({ level: config.logLevel, base: undefined }, { write: (line: string) => send({ type: 'log', line }) });
  const keys: TsigKey[] = config.tsigKeys.flatMap((k) =>
    isTsigAlgorithm(k.algorithm) ? [{ name: k.name, algorithm: k.algorithm, secret: Buffer.from(k.secret, 'base64') }] : [],
  );
  const counters = new QueryCounters();
  let server: LocalDnsServer;
  try {
    const native = config.udpEngine === 'native' ? loadNativeUdp() : undefined;
    if (config.udpEngine === 'native' && native === undefined) throw new Error('--dns-udp-engine: the native UDP addon is not built');
    server = new LocalDnsServer({
      listen: config.listen,
      allowTransfer: config.allowTransfer,
      tsigKeys: keys,
      udpSize: config.udpSize,
      ixfrJournal: config.ixfrJournal,
      tcp: config.tcp,
      packetCache: config.packetCache,
      native,
      reusePort: false,
      counters,
      logger,
      onApplied: (applied) => send({ type: 'applied', applied }),
    });
  } catch (err) {
    send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    return;
  }
  port.on('message', (m: ToThread) => {
    if (m.type === 'zone') server.zoneChanged(m.origin, m.seq, () => new ZoneReader(m.packed));
    else if (m.type === 'remove') server.zoneRemoved(m.origin, m.seq);
    else if (m.type === 'counters') send({ type: 'counters', id: m.id, snapshot: counters.snapshot() });
    else if (m.type === 'start') {
      server.start().then(
        (addresses) => send({ type: 'ready', addresses }),
        (err: unknown) => send({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
      );
    } else if (m.type === 'stop') {
      const done = (): void => {
        send({ type: 'stopped' });
        port.close();
      };
      server.stop().then(done, done);
    }
  });
}

main();
