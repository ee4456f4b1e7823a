/**
 * The secondary's side of zone transfers: ask a primary for its SOA serial (UDP, TCP when
 * truncated), and pull a zone by IXFR (RFC 1995) or AXFR (RFC 5936) over TCP, with TSIG
 * (RFC 8945) on the query and every answer message when a key is given. The result is
 * ZoneContent, ready for serializeZone and the zone store.
 */
import { randomInt } from 'node:crypto';
import { soaRR, writeRR } from '../rdata.ts';
import { findTsig, sign, verify } from '../tsig.ts';
import type { TsigKey } from '../tsig.ts';
import { CLASS_IN, RCODE_NAMES, RCODE_SERVFAIL, T_AXFR, T_IXFR, T_SOA, Writer } from '../wire.ts';
import type { SOA, ZoneContent } from '../zone-content.ts';
import { applyChanges, zoneFromRecords } from './apply.ts';
import { TransferError } from './errors.ts';
import { tcpStream, udpExchange, where } from './net.ts';
import type { Target } from './net.ts';
import { readAnswers, readHeader } from './records.ts';
import { TransferReader } from './stream.ts';

export interface SoaQueryOptions {
  tsig?: TsigKey;
  /** Per attempt. */
  timeoutMs: number;
  /** Further attempts after a timeout (bounded; 0 = one attempt). */
  retries: number;
  /** Seconds since the epoch (TSIG); the clock by default. */
  now?: () => number;
}

export interface TransferOptions {
  /** Ask for the changes since this serial (IXFR); taken from `current` when absent. */
  fromSerial?: number;
  /** The local copy the IXFR changes apply to; without it an incremental answer is refused. */
  current?: ZoneContent;
  tsig?: TsigKey;
  /** For the whole transfer. */
  timeoutMs: number;
  /** Bytes of answer (all messages) at most. */
  maxBytes: number;
  now?: () => number;
}

export interface TransferResult {
  kind: 'current' | 'ixfr' | 'axfr';
  serial: number;
  content: ZoneContent;
  /** Answer messages and bytes received, and the IXFR changes applied (0 for AXFR and current). */
  stats: { messages: number; bytes: number; changes: number };
}

const TSIG_ERRORS: Readonly<Record<number, string>> = { 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 22: 'BADTRUNC' };

function clock(): number {
  return Date.now() / 1000;
}

function normalize(zone: string): string {
  const z = zone.toLowerCase();
  return z.endsWith('.') ? z.slice(0, -1) : z;
}

/** A query for `zone`; an IXFR query carries the client's SOA in its authority section. */
export function buildQuery(id: number, zone: string, type: number, soa?: SOA): Buffer {
  const w = new Writer({ initialSize: 256 });
  w.u16(id);
  w.u16(0);
  w.u16(1);
  w.u16(0);
  w.u16(soa === undefined ? 0 : 1);
  w.u16(0);
  w.name(zone);
  w.u16(type);
  w.u16(CLASS_IN);
  if (soa !== undefined) writeRR(w, zone, soaRR(soa));
  return w.finish();
}

/** Signs queries and checks each answer message: rcode first, then the TSIG chain. */
class Exchange {
  private mac: Buffer | undefined;
  private first = true;
  readonly query: Buffer;

  constructor(
    private readonly zone: string,
    /** What was asked of whom, for messages: "IXFR from 192.0.2.1:53". */
    private readonly what: string,
    private readonly id: number,
    query: Buffer,
    private readonly key: TsigKey | undefined,
    private readonly now: () => number,
  ) {
    if (key === undefined) this.query = query;
    else {
      const signed = sign(query, key, now());
      this.query = signed.message;
      this.mac = signed.mac;
    }
  }

  /** True when `msg` answers this query (for UDP, where strays may arrive). */
  matches(msg: Buffer): boolean {
    const h = readHeader(msg);
    return h !== undefined && h.qr && h.id === this.id;
  }

  check(msg: Buffer): void {
    const h = readHeader(msg);
    if (h === undefined || !h.qr || h.id !== this.id)
      throw new TransferError(this.zone, 'malformed', `${this.what}: an answer message with a wrong ID or header`);
    if (h.rcode !== 0) this.rcodeFailure(msg, h.rcode);
    if (this.key === undefined) return;
    const key = this.key;
    const result = verify(msg, (n) => (n === key.name ? key : undefined), {
      now: this.now(),
      ...(this.mac === undefined ? {} : { requestMac: this.mac }),
      ...(this.first ? {} : { timersOnly: true }),
    });
    if (result.status !== 'ok') {
      const why = result.status === 'unsigned' ? 'is not signed' : `failed TSIG verification (${TSIG_ERRORS[result.error] ?? result.error})`;
      throw new TransferError(this.zone, 'tsig', `${this.what}: an answer message ${why} with key ${key.name}`);
    }
    this.mac = result.record.mac;
    this.first = false;
  }

  private rcodeFailure(msg: Buffer, rcode: number): never {
    const name = RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
    const tsigError = this.key === undefined ? undefined : tsigErrorOf(msg);
    if (tsigError !== undefined)
      throw new TransferError(this.zone, 'tsig', `${this.what}: the server answered ${name}: it did not accept key ${this.key?.name} (${tsigError})`, {
        rcode: name,
      });
    throw new TransferError(this.zone, 'rcode', `${this.what}: the server answered ${name}`, { rcode: name, transient: rcode === RCODE_SERVFAIL });
  }
}

function tsigErrorOf(msg: Buffer): string | undefined {
  const rec = findTsig(msg);
  if (rec === undefined || rec.error === 0) return undefined;
  return TSIG_ERRORS[rec.error] ?? `TSIG error ${rec.error}`;
}

/** The primary's SOA for `zone`, over UDP with bounded retries, over TCP when the answer is truncated. */
export async function querySoa(target: Target, zone: string, opts: SoaQueryOptions): Promise<SOA> {
  const origin = normalize(zone);
  const now = opts.now ?? clock;
  let lastError: unknown;
  for (let attempt = 0; attempt <= Math.max(0, Math.floor(opts.retries)); attempt++) {
    const id = randomInt(0x10000);
    const ex = new Exchange(origin, `SOA query to ${where(target)}`, id, buildQuery(id, origin, T_SOA), opts.tsig, now);
    try {
      let msg = await udpExchange(origin, target, ex.query, opts.timeoutMs, (m) => ex.matches(m));
      if (readHeader(msg)?.tc === true) msg = await soaOverTcp(origin, target, opts, now);
      else ex.check(msg);
      return soaOf(origin, msg);
    } catch (err) {
      // Lost datagrams, a port not yet listening, SERVFAIL: worth another try; a refusal is not.
      if (!(err instanceof TransferError) || !err.transient) throw err;
      lastError = err;
    }
  }
  throw lastError;
}

async function soaOverTcp(origin: string, target: Target, opts: SoaQueryOptions, now: () => number): Promise<Buffer> {
  const id = randomInt(0x10000);
  const ex = new Exchange(origin, `SOA query over TCP to ${where(target)}`, id, buildQuery(id, origin, T_SOA), opts.tsig, now);
  let answer: Buffer | undefined;
  await tcpStream(origin, target, ex.query, { timeoutMs: opts.timeoutMs, maxBytes: 65_537 }, (msg) => {
    ex.check(msg);
    answer = Buffer.from(msg);
    return true;
  });
  return answer as Buffer;
}

function soaOf(origin: string, msg: Buffer): SOA {
  const soa = readAnswers(msg)?.find((r) => r.type === T_SOA && r.name === origin)?.soa;
  if (soa === undefined) throw new TransferError(origin, 'malformed', 'the SOA answer holds no SOA record for the zone');
  return soa;
}

/** Pulls `zone` from `target`: IXFR when a serial or local copy is given (any of its three answer forms), else AXFR. */
export async function transferZone(target: Target, zone: string, opts: TransferOptions): Promise<TransferResult> {
  const origin = normalize(zone);
  const fromSerial = opts.fromSerial ?? opts.current?.soa.serial;
  if (opts.current !== undefined && fromSerial !== opts.current.soa.serial) {
    throw new TransferError(origin, 'diverged', `fromSerial ${fromSerial} is not the serial of the local copy (${opts.current.soa.serial})`);
  }
  const id = randomInt(0x10000);
  const base: SOA = opts.current?.soa ?? { mname: '', rname: '', serial: 0, refresh: 0, retry: 0, expire: 0, minimum: 0, ttl: 0 };
  const query = fromSerial === undefined ? buildQuery(id, origin, T_AXFR) : buildQuery(id, origin, T_IXFR, { ...base, serial: fromSerial });
  const what = `${fromSerial === undefined ? 'AXFR' : `IXFR from serial ${fromSerial}`} from ${where(target)}`;
  const ex = new Exchange(origin, what, id, query, opts.tsig, opts.now ?? clock);
  const reader = new TransferReader(origin, fromSerial);
  const stats = { messages: 0, bytes: 0, changes: 0 };
  await tcpStream(origin, target, ex.query, { timeoutMs: opts.timeoutMs, maxBytes: opts.maxBytes }, (msg) => {
    stats.messages++;
    stats.bytes += msg.length + 2;
    ex.check(msg);
    const records = readAnswers(msg);
    if (records === undefined) throw new TransferError(origin, 'malformed', 'an answer message cannot be parsed');
    for (const rec of records) reader.push(rec);
    reader.endOfMessage();
    return reader.done;
  });
  return resultOf(origin, reader, opts.current, stats);
}

function resultOf(origin: string, reader: TransferReader, current: ZoneContent | undefined, stats: TransferResult['stats']): TransferResult {
  const parsed = reader.result();
  const serial = parsed.soa.serial;
  if (parsed.kind === 'axfr') return { kind: 'axfr', serial, content: zoneFromRecords(origin, parsed.soa, parsed.records), stats };
  if (current === undefined) {
    if (parsed.kind === 'current') throw new TransferError(origin, 'diverged', `the server is at serial ${serial}, ours; there is no local copy to return`);
    throw new TransferError(origin, 'diverged', 'the server answered with changes, and there is no local copy to apply them to');
  }
  if (parsed.kind === 'current') return { kind: 'current', serial, content: current, stats };
  stats.changes = parsed.changes.length;
  return { kind: 'ixfr', serial, content: applyChanges(current, parsed.changes, parsed.soa), stats };
}
