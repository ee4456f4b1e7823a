/**
 * A steady stream of UDP queries to a DNS server on 127.0.0.1, for measuring how long the server
 * goes without answering (while a sync runs, say). One query every `everyMs` from one socket, for
 * at most `maxMs` (every loop here is bounded); each reply is matched to its query by ID.
 */
import { createSocket } from 'node:dgram';

export interface ProbeStats {
  sent: number;
  answered: number;
  /** Queries without a reply when the probe stopped (lost, or still unanswered). */
  unanswered: number;
  /** Longest time without any reply: between two replies, or from the start or to the end of the window. */
  largestGapMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /**
   * Longest time between two of the prober's own sends: when this process is not scheduled (a
   * busy machine), it sends nothing, and a gap in the answers is partly its own.
   */
  largestSendGapMs: number;
}

export interface Prober {
  /** Stops sending, waits `graceMs` for late replies and returns the figures. */
  stop(graceMs?: number): Promise<ProbeStats>;
}

/** A query for `name` (type A, RD clear), ID `id`. */
export function aQuery(id: number, name: string): Buffer {
  const labels = name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id, 0);
  head.writeUInt16BE(1, 4);
  return Buffer.concat([head, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}

export async function startProber(port: number, name: string, options: { everyMs?: number; maxMs?: number } = {}): Promise<Prober> {
  const everyMs = options.everyMs ?? 2;
  const maxMs = options.maxMs ?? 120_000;
  const sock = createSocket({ type: 'udp4', recvBufferSize: 1 << 20 });
  await new Promise<void>((r) => sock.bind({ address: '127.0.0.1', port: 0 }, () => r()));
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  const start = performance.now();
  let lastReply = start;
  let largestGap = 0;
  let sent = 0;
  let id = 0;
  let lastSend = start;
  let largestSendGap = 0;
  sock.on('message', (m) => {
    const t = performance.now();
    const at = sentAt.get(m.readUInt16BE(0));
    if (at === undefined) return;
    sentAt.delete(m.readUInt16BE(0));
    latencies.push(t - at);
    largestGap = Math.max(largestGap, t - lastReply);
    lastReply = t;
  });
  const send = (): void => {
    const now = performance.now();
    if (now - start > maxMs) return stopTimer();
    largestSendGap = Math.max(largestSendGap, now - lastSend);
    lastSend = now;
    id = (id + 1) & 0xffff;
    sentAt.set(id, now);
    sent++;
    sock.send(aQuery(id, name), port, '127.0.0.1');
  };
  const timer = setInterval(send, everyMs);
  const stopTimer = (): void => clearInterval(timer);
  return {
    stop: async (graceMs = 500) => {
      stopTimer();
      const end = performance.now();
      await new Promise((r) => setTimeout(r, graceMs));
      sock.close();
      largestGap = Math.max(largestGap, end - lastReply);
      latencies.sort((a, b) => a - b);
      const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(p * latencies.length) - 1))] ?? NaN;
      return {
        sent,
        answered: latencies.length,
        unanswered: sentAt.size,
        largestGapMs: largestGap,
        p50Ms: pct(0.5),
        p99Ms: pct(0.99),
        maxMs: latencies[latencies.length - 1] ?? NaN,
        largestSendGapMs: largestSendGap,
      };
    },
  };
}
