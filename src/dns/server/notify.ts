/**
 * NOTIFY (RFC 1996) to secondaries after a zone change: best effort over UDP, a few bounded
 * retries, and a newer change for the same zone supersedes retries of the older one.
 */
import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { randomInt } from 'node:crypto';
import type { Logger } from '../../log.ts';
import { soaRR, writeRR } from '../rdata.ts';
import { ConfigError } from '../../errors.ts';
import type { SOA } from '../zone-content.ts';
import { CLASS_IN, OPCODE_NOTIFY, T_SOA, Writer } from '../wire.ts';

export interface NotifyTarget {
  host: string;
  port: number;
}

export function parseHostPort(spec: string, defaultPort: number, flag: string): NotifyTarget {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(spec) ?? /^([^:]*)(?::(\d+))?$/.exec(spec);
  if (m === null) throw new ConfigError(`cannot parse address "${spec}" (want host:port, [v6]:port or :port)`, flag);
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`bad port in "${spec}"`, flag);
  return { host: m[1] ?? '', port };
}

export function notifyMessage(id: number, origin: string, soa: SOA): Buffer {
  const w = new Writer();
  w.u16(id);
  w.u16((OPCODE_NOTIFY << 11) | 0x0400);
  w.u16(1);
  w.u16(1);
  w.u16(0);
  w.u16(0);
  w.name(origin);
  w.u16(T_SOA);
  w.u16(CLASS_IN);
  writeRR(w, origin, soaRR(soa));
  return w.finish();
}

export interface NotifierOptions {
  targets: readonly NotifyTarget[];
  logger: Logger;
  attempts?: number;
  timeoutMs?: number;
}

export class Notifier {
  private readonly targets: readonly NotifyTarget[];
  private readonly logger: Logger;
  private readonly attempts: number;
  private readonly timeoutMs: number;
  /** Generation per zone: a send loop stops when a newer change for its zone started. */
  private readonly generation = new Map<string, number>();
  private readonly inflight = new Set<Promise<void>>();
  private stopped = false;

  constructor(options: NotifierOptions) {
    this.targets = options.targets;
    this.logger = options.logger;
    this.attempts = options.attempts ?? 3;
    this.timeoutMs = options.timeoutMs ?? 1000;
  }

  zoneChanged(origin: string, soa: SOA): void {
    if (this.targets.length === 0 || this.stopped) return;
    const gen = (this.generation.get(origin) ?? 0) + 1;
    this.generation.set(origin, gen);
    for (const t of this.targets) {
      const p = this.send(origin, soa, t, gen).catch((err: unknown) => this.logger.warn({ err, zone: origin }, 'NOTIFY failed'));
      this.inflight.add(p);
      void p.finally(() => this.inflight.delete(p));
    }
  }

  /** Waits for outstanding sends (each bounded by attempts × timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.inflight]);
  }

  private async send(origin: string, soa: SOA, target: NotifyTarget, gen: number): Promise<void> {
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      if (this.stopped || this.generation.get(origin) !== gen) return;
      const id = randomInt(0, 0x10000);
      const rcode = await exchange(notifyMessage(id, origin, soa), id, target, this.timeoutMs);
      if (rcode !== undefined) {
        this.logger.debug({ zone: origin, target, rcode, serial: soa.serial }, 'NOTIFY acknowledged');
        return;
      }
    }
    this.logger.warn({ zone: origin, target: `${target.host}:${target.port}`, attempts: this.attempts }, 'NOTIFY not acknowledged');
  }
}

/** Sends one datagram and waits for the reply with the same ID; undefined on timeout. */
function exchange(msg: Buffer, id: number, target: NotifyTarget, timeoutMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const sock = createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
    let done = false;
    const finish = (v: number | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.close();
      resolve(v);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    sock.on('error', () => finish(undefined));
    sock.on('message', (reply) => {
      if (reply.length >= 12 && reply.readUInt16BE(0) === id && (reply[2] ?? 0) & 0x80) finish((reply[3] ?? 0) & 0xf);
    });
    sock.send(msg, target.port, target.host, (err) => {
      if (err) finish(undefined);
    });
  });
}
