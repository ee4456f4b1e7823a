/**
 * The transport-independent query path: bytes in, bytes out. It owns the zone indexes and the
 * name table that joins them, and never throws on input (a bug in a branch answers SERVFAIL).
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { RateLimitedLog } from '../../log.ts';
import type { Logger } from '../../log.ts';
import type { ZoneSource } from './zone-pack.ts';
import { fromEncloser, prepareNode, prepareNxdomain, prepareReferral } from './answer.ts';
import { dnameOf, synthesiseDname } from './dname.ts';
import type { Prepared } from './zone-index.ts';
import { PARSE_DROP, PARSE_FORMERR, ParsedQuery, parseQuery } from './query.ts';
import { sign, verify } from '../tsig.ts';
import type { TsigKey } from '../tsig.ts';
import { packMessages, transferMessages } from './axfr.ts';
import { clientSerial, ixfrRecords, planIxfr } from './ixfr.ts';
import { DEFAULT_JOURNAL_BYTES, DEFAULT_JOURNAL_CHANGES, IxfrJournal, diffZones, serialCompare } from './ixfr-journal.ts';
import type { JournalEntry } from './ixfr-journal.ts';
import {
  CLASS_ANY,
  CLASS_IN,
  OPCODE_NOTIFY,
  OPCODE_QUERY,
  RCODE_BADVERS,
  RCODE_FORMERR,
  RCODE_NOERROR,
  RCODE_NOTAUTH,
  RCODE_NOTIMP,
  RCODE_NXDOMAIN,
  RCODE_REFUSED,
  RCODE_SERVFAIL,
  T_ANY,
  T_AXFR,
  T_DS,
  T_IXFR,
  T_OPT,
  T_SOA,
} from '../wire.ts';
import { ZoneIndex, normalise } from './zone-index.ts';
import type { ZoneNode } from './zone-index.ts';

export type Transport = 'udp' | 'tcp';

export interface ResponderOptions {
  /** Largest UDP payload we send to EDNS clients (RFC 6891; 1232 is the DNS Flag Day 2020 value). */
  udpSize?: number;
  /** CIDRs allowed to transfer zones without TSIG. */
  allowTransfer?: readonly string[];
  tsigKeys?: readonly TsigKey[];
  /** IXFR journal bounds per zone (`--dns-ixfr-journal-size`, `--dns-ixfr-journal-bytes`); 0 changes: IXFR is answered in full. */
  ixfrJournal?: { changes: number; bytes: number };
  logger: Logger;
  /** Seconds since the epoch, for TSIG. */
  now?: () => number;
}

/** What the last handled message was, for metrics, without allocating a result object. */
export interface LastQuery {
  rcode: number;
  qtype: number;
  /**
   * Set by handleInto: the reply depends on the query's bytes after its ID alone (a NOERROR or
   * NXDOMAIN answer from a zone to a plain QUERY: no TSIG, no EDNS option, not ANY, AXFR or IXFR,
   * not truncated), so the native packet cache may keep it until the next zone change.
   */
  cacheable: boolean;
}

export class Responder {
  private zones = new Map<string, ZoneIndex>();
  private names = new Map<string, ZoneNode>();
  private readonly udpSize: number;
  private readonly allow = new BlockList();
  private readonly keys = new Map<string, TsigKey>();
  private readonly logger: Logger;
  /** Lines any client can cause once per message (2,000 refused AXFRs fit in one TCP write): a flood is summarised. */
  private readonly clientLog: RateLimitedLog;
  private readonly now: () => number;
  private readonly q = new ParsedQuery();
  readonly last: LastQuery = { rcode: 0, qtype: 0, cacheable: false };
  /** Called synchronously after every swap of the served zones (the packet caches flush). */
  private readonly changeHooks = new Set<() => void>();
  /** What of a prepared answer the current reply carries (see fit), reused by every reply. */
  private readonly cut = { an: 0, ns: 0, ar: 0, tc: 0, used: 0 };
  /** The differences between the zone contents swapped in, for IXFR. */
  readonly journal: IxfrJournal;

  constructor(options: ResponderOptions) {
    this.udpSize = Math.max(512, Math.min(65535, options.udpSize ?? 1232));
    this.logger = options.logger;
    this.clientLog = new RateLimitedLog(options.logger);
    this.now = options.now ?? (() => Date.now() / 1000);
    for (const cidr of options.allowTransfer ?? []) addCidr(this.allow, cidr);
    for (const k of options.tsigKeys ?? []) this.keys.set(k.name, k);
    this.journal = new IxfrJournal(options.ixfrJournal ?? { changes: DEFAULT_JOURNAL_CHANGES, bytes: DEFAULT_JOURNAL_BYTES });
  }

  /** Loads a zone in one go (tests, tools); servers use `loadZone` to interleave it with queries. */
  setZone(content: ZoneSource): ZoneIndex {
    return runToEnd(this.loadZone(content));
  }

  removeZone(origin: string): void {
    runToEnd(this.unloadZone(origin));
  }

  /**
   * Builds the zone's index and the name table a slice at a time (yielding between slices) and
   * swaps both in at the end: until then queries are answered from the previous content. Loads
   * must not overlap (zone-loader.ts runs one at a time). A newer serial's difference from the
   * served content goes into the IXFR journal, computed in slices too.
   */
  *loadZone(source: ZoneSource): Generator<void, ZoneIndex> {
    const origin = source.origin;
    const zone = yield* ZoneIndex.build(source, (name, type, text) => this.logger.warn({ zone: origin, name, type, rdata: text }, 'skipping invalid record'));
    const old = this.zones.get(zone.origin);
    let entry: JournalEntry | undefined;
    if (old !== undefined && !old.provisional && this.journal.enabled && serialCompare(old.serial, zone.serial) === -1) entry = yield* diffZones(old, zone);
    const zones = new Map(this.zones).set(zone.origin, zone);
    const names = yield* nameTable(zones);
    this.zones = zones;
    this.names = names;
    // Content under a serial that is not newer, or after provisional content, breaks every chain:
    // such clients get full transfers.
    if (entry === undefined) this.journal.drop(zone.origin);
    else this.journal.record(zone.origin, entry);
    this.changed();
    return zone;
  }

  *unloadZone(origin: string): Generator<void> {
    const zones = new Map(this.zones);
    if (!zones.delete(normalise(origin))) return;
    const names = yield* nameTable(zones);
    this.zones = zones;
    this.names = names;
    this.journal.drop(normalise(origin));
    this.changed();
  }

  /** Runs `hook` after every change of the answers (a zone swapped in or out); returns its remover. */
  onChange(hook: () => void): () => void {
    this.changeHooks.add(hook);
    return () => this.changeHooks.delete(hook);
  }

  private changed(): void {
    for (const hook of this.changeHooks) hook();
  }

  zoneList(): ZoneIndex[] {
    return [...this.zones.values()];
  }

  /**
   * Answers one message. Returns undefined when no reply should be sent; TCP transfers return several.
   * `remoteAddress` may be a function, called only when a transfer or TSIG decision needs it, so a
   * transport need not make an address string per packet.
   */
  handle(msg: Buffer, transport: Transport, remoteAddress: string | (() => string)): Buffer | Buffer[] | undefined {
    try {
      const r = this.route(msg, transport, remoteAddress);
      return r === undefined || r instanceof Uint8Array || Array.isArray(r) ? r : this.assemble(msg, r, transport, 0);
    } catch (err) {
      return this.failed(err, msg);
    }
  }

  /**
   * Answers one UDP message into `out[at, at + room)` (the native engine's reply slot) and returns
   * the reply's length, 0 for no reply. An answer from a prepared tail is written in place: no
   * reply Buffer per query and no second copy into the slot.
   */
  handleInto(msg: Buffer, remoteAddress: string | (() => string), out: Buffer, at: number, room: number): number {
    let reply: Buffer | Buffer[] | undefined;
    this.last.cacheable = false;
    try {
      const r = this.route(msg, 'udp', remoteAddress);
      if (r !== undefined && !(r instanceof Uint8Array) && !Array.isArray(r)) {
        const size = this.fit(r, 'udp', 0);
        if (size > room) return 0;
        // A prepared answer comes only from a zone lookup for a QUERY of class IN/ANY without TSIG.
        const q = this.q;
        this.last.cacheable = this.cut.tc === 0 && !q.ednsOptions && q.qtype !== T_ANY && (r.rcode === RCODE_NOERROR || r.rcode === RCODE_NXDOMAIN);
        return this.write(msg, r, out, at);
      }
      reply = r;
    } catch (err) {
      this.last.cacheable = false;
      reply = this.failed(err, msg);
    }
    const b = Array.isArray(reply) ? reply[0] : reply;
    if (b === undefined || b.length > room) return 0;
    return b.copy(out, at);
  }

  private failed(err: unknown, msg: Buffer): Buffer | undefined {
    this.clientLog.error({ err }, 'query handling failed');
    if (msg.length < 12) return undefined;
    this.last.rcode = RCODE_SERVFAIL;
    return headerOnly(msg, RCODE_SERVFAIL);
  }

  /** Parses and decides: a reply, no reply, or the prepared answer to assemble. */
  private route(msg: Buffer, transport: Transport, remoteAddress: string | (() => string)): Prepared | Buffer | Buffer[] | undefined {
    const q = this.q;
    const status = parseQuery(msg, q);
    this.last.qtype = q.qtype;
    if (status === PARSE_DROP) return undefined;
    if (q.opcode !== OPCODE_QUERY && q.opcode !== OPCODE_NOTIFY) return this.error(msg, RCODE_NOTIMP, transport);
    if (status === PARSE_FORMERR) return this.error(msg, RCODE_FORMERR, transport);
    if (q.tsigOffset >= 0) return this.signed(msg, transport, addressOf(remoteAddress));
    if (q.edns && q.ednsVersion > 0) return this.error(msg, RCODE_BADVERS, transport);
    if (q.opcode === OPCODE_NOTIFY) return this.error(msg, this.zones.has(q.qname) ? RCODE_NOERROR : RCODE_REFUSED, transport, true);
    if (q.qclass !== CLASS_IN && q.qclass !== CLASS_ANY) return this.error(msg, RCODE_REFUSED, transport);
    if (q.qtype === T_AXFR || q.qtype === T_IXFR) return this.transfer(msg, transport, addressOf(remoteAddress), undefined);
    const p = this.lookup(q.qname, q.qtype, (q.flags & 0x0100) !== 0);
    return p ?? this.error(msg, RCODE_REFUSED, transport);
  }

  private lookup(qname: string, qtype: number, minimal: boolean): Prepared | undefined {
    const node = this.names.get(qname);
    if (node !== undefined) {
      // DS lives on the parent side of a cut (RFC 4035 3.1.4.1): answered here, not referred.
      if (node.cut === undefined || (qtype === T_DS && node.cut === node)) return prepareNode(node, qtype, minimal);
      return prepareReferral(node.cut);
    }
    let rest = qname;
    while (rest !== '') {
      const dot = rest.indexOf('.');
      rest = dot === -1 ? '' : rest.slice(dot + 1);
      const e = this.names.get(rest);
      if (e === undefined) continue;
      const dname = dnameOf(e);
      if (dname !== undefined) return synthesiseDname(e, dname, qname);
      const found = fromEncloser(e);
      if (found.kind === 'referral') return prepareReferral(found.cut);
      if (found.kind === 'nxdomain') return prepareNxdomain(e.zone, qtype);
      return prepareNode(found.node, qtype, minimal);
    }
    return undefined;
  }

  /** Copies the question and a prepared tail into a reply sized for the transport. */
  private assemble(msg: Buffer, p: Prepared, transport: Transport, reserve: number): Buffer {
    const out = Buffer.allocUnsafe(this.fit(p, transport, reserve));
    this.write(msg, p, out, 0);
    return out;
  }

  /** Chooses what of `p` fits the transport's limit (into `this.cut`) and returns the reply's size. */
  private fit(p: Prepared, transport: Transport, reserve: number): number {
    const q = this.q;
    const c = this.cut;
    const limit = (transport === 'tcp' ? 65535 : q.edns ? Math.max(512, Math.min(q.ednsUdpSize, this.udpSize)) : 512) - reserve;
    const optLen = q.edns ? 11 : 0;
    const base = q.questionEnd;
    c.used = p.tail.length;
    c.an = p.an;
    c.ns = p.ns;
    c.ar = p.ar;
    c.tc = 0;
    if (base + c.used + optLen > limit) {
      // Like BIND: drop additional first, then (for positive answers) authority, else truncate.
      c.ar = 0;
      c.used = p.nsEnd;
      if (base + c.used + optLen > limit && p.an > 0) {
        c.ns = 0;
        c.used = p.anEnd;
      }
      if (base + c.used + optLen > limit) {
        c.tc = 0x0200;
        c.an = 0;
        c.ns = 0;
        c.used = 0;
      }
    }
    return base + c.used + optLen;
  }

  /** Writes the reply `fit` chose at `out[at]`; returns its length. */
  private write(msg: Buffer, p: Prepared, out: Buffer, at: number): number {
    const q = this.q;
    const { an, ns, ar, tc, used } = this.cut;
    const base = q.questionEnd;
    out.writeUInt16BE(q.id, at);
    out.writeUInt16BE(0x8000 | (q.flags & 0x7910) | (p.aa ? 0x0400 : 0) | tc | (p.rcode & 0xf), at + 2);
    out.writeUInt16BE(1, at + 4);
    out.writeUInt16BE(an, at + 6);
    out.writeUInt16BE(ns, at + 8);
    out.writeUInt16BE(ar + (q.edns ? 1 : 0), at + 10);
    // Byte loops, not Buffer#copy: on Node 20 a partial copy makes a Uint8Array view per call,
    // and these copies are a few dozen bytes.
    for (let i = 12; i < base; i++) out[at + i] = msg[i] ?? 0;
    const tail = p.tail;
    for (let i = 0, o = at + base; i < used; i++) out[o + i] = tail[i] ?? 0;
    const fx = p.fixups;
    for (let i = 0; i < fx.length; i++) {
      const f = fx[i] ?? 0;
      if (f >= used) break;
      out.writeUInt16BE(0xc000 | ((p.tail.readUInt16BE(f) & 0x3fff) + base), at + base + f);
    }
    if (q.edns) writeOpt(out, at + base + used, this.udpSize, 0);
    this.last.rcode = p.rcode;
    return base + used + (q.edns ? 11 : 0);
  }

  /** Header and (when sound) question only, with the given rcode; OPT echoed for EDNS queries. */
  private error(msg: Buffer, rcode: number, _transport: Transport, aa = false): Buffer {
    this.last.rcode = rcode;
    const q = this.q;
    const qlen = q.questionEnd > 0 ? q.questionEnd - 12 : 0;
    const optLen = q.edns ? 11 : 0;
    const out = Buffer.alloc(12 + qlen + optLen);
    out.writeUInt16BE(q.id, 0);
    out.writeUInt16BE(0x8000 | (q.flags & 0x7910) | (aa ? 0x0400 : 0) | (rcode & 0xf), 2);
    out.writeUInt16BE(qlen > 0 ? 1 : 0, 4);
    out.writeUInt16BE(optLen > 0 ? 1 : 0, 10);
    if (qlen > 0) msg.copy(out, 12, 12, 12 + qlen);
    if (optLen > 0) writeOpt(out, 12 + qlen, this.udpSize, rcode >> 4);
    return out;
  }

  private transferAllowed(remote: string): boolean {
    const family = isIPv4(remote) ? 'ipv4' : isIPv6(remote) ? 'ipv6' : undefined;
    return family !== undefined && this.allow.check(remote, family);
  }

  /**
   * AXFR over TCP only; IXFR (RFC 1995) incrementally when the journal holds every change since
   * the client's serial, else as a full transfer.
   */
  private transfer(msg: Buffer, transport: Transport, remote: string, key: TsigKey | undefined, requestMac?: Buffer): Buffer | Buffer[] {
    const q = this.q;
    const zone = this.zones.get(q.qname);
    if (zone === undefined) return this.finishSigned(this.error(msg, q.opcode === OPCODE_QUERY ? RCODE_NOTAUTH : RCODE_REFUSED, transport), key, requestMac);
    const allowed = key !== undefined || this.transferAllowed(remote);
    if (transport === 'udp') {
      const reply = q.qtype === T_IXFR ? this.udpIxfr(msg, zone, allowed, key === undefined ? 0 : 160) : this.error(msg, RCODE_FORMERR, transport);
      return this.finishSigned(reply, key, requestMac);
    }
    if (!allowed) {
      this.clientLog.info({ zone: zone.origin, remote }, 'zone transfer refused');
      return this.error(msg, RCODE_REFUSED, transport);
    }
    this.last.rcode = RCODE_NOERROR;
    const question = msg.subarray(12, q.questionEnd);
    const messages = q.qtype === T_IXFR ? this.tcpIxfr(msg, zone, question, remote) : transferMessages(zone, q.id, question);
    if (key === undefined) return messages;
    let prior = requestMac;
    const now = this.now();
    return messages.map((m, i) => {
      const s = sign(m, key, now, prior, i === 0 ? {} : { timersOnly: true });
      prior = s.mac;
      return s.message;
    });
  }

  private tcpIxfr(msg: Buffer, zone: ZoneIndex, question: Buffer, remote: string): Buffer[] {
    const q = this.q;
    const serial = clientSerial(msg, q.questionEnd);
    const plan = planIxfr(this.journal, zone, serial);
    this.logger.debug({ zone: zone.origin, remote, clientSerial: serial, serial: zone.serial, answer: plan.kind }, 'IXFR');
    if (plan.kind === 'current') return packMessages(q.id, question, [{ owner: zone.origin, rr: zone.soa }]);
    if (plan.kind === 'incremental') return packMessages(q.id, question, ixfrRecords(zone, plan.chain));
    return transferMessages(zone, q.id, question);
  }

  /**
   * IXFR over UDP: the incremental answer when it fits one datagram, else the current SOA alone,
   * which tells the client to ask again over TCP (RFC 1995 2). Without transfer rights, only the SOA.
   */
  private udpIxfr(msg: Buffer, zone: ZoneIndex, allowed: boolean, reserve: number): Buffer {
    const q = this.q;
    const plan = allowed ? planIxfr(this.journal, zone, clientSerial(msg, q.questionEnd)) : undefined;
    if (plan?.kind === 'incremental') {
      const optLen = q.edns ? 11 : 0;
      const limit = (q.edns ? Math.max(512, Math.min(q.ednsUdpSize, this.udpSize)) : 512) - reserve - optLen;
      const messages = packMessages(q.id, msg.subarray(12, q.questionEnd), ixfrRecords(zone, plan.chain), limit);
      const only = messages.length === 1 ? messages[0] : undefined;
      if (only !== undefined && only.length <= limit) {
        this.last.rcode = RCODE_NOERROR;
        if (!q.edns) return only;
        const out = Buffer.alloc(only.length + optLen);
        only.copy(out);
        out.writeUInt16BE(1, 10);
        writeOpt(out, only.length, this.udpSize, 0);
        return out;
      }
    }
    return this.assemble(msg, prepareNode(zone.apex, T_SOA, true), 'udp', reserve);
  }

  private finishSigned(reply: Buffer, key: TsigKey | undefined, requestMac: Buffer | undefined): Buffer {
    if (key === undefined) return reply;
    return sign(reply, key, this.now(), requestMac).message;
  }

  /** Requests carrying TSIG: verify, answer, and sign the answer with the same key. */
  private signed(msg: Buffer, transport: Transport, remote: string): Buffer | Buffer[] {
    const q = this.q;
    const result = verify(msg, (name) => this.keys.get(name), { now: this.now() });
    if (result.status === 'unsigned') return this.error(msg, RCODE_FORMERR, transport);
    if (result.status === 'error') {
      this.clientLog.info({ remote, key: result.record.keyName, tsigError: result.error }, 'TSIG verification failed');
      const reply = this.error(msg, RCODE_NOTAUTH, transport);
      const signingKey = result.key ?? { name: result.record.keyName, algorithm: 'hmac-sha256', secret: Buffer.alloc(0) };
      const other = Buffer.alloc(6);
      const now = Math.floor(this.now());
      other.writeUInt16BE(Math.floor(now / 0x100000000), 0);
      other.writeUInt32BE(now % 0x100000000, 2);
      const algorithmKnown = result.key !== undefined;
      return sign(reply, signingKey, algorithmKnown ? this.now() : result.record.time, algorithmKnown ? result.record.mac : undefined, {
        error: result.error,
        ...(result.error === 18 ? { otherData: other } : {}),
      }).message;
    }
    const key = result.key;
    const mac = result.record.mac;
    // Answer as if unsigned, from the message without its TSIG record.
    const body = Buffer.from(msg.subarray(0, q.tsigOffset));
    body.writeUInt16BE(body.readUInt16BE(10) - 1, 10);
    parseQuery(body, q);
    if (q.edns && q.ednsVersion > 0) return this.finishSigned(this.error(body, RCODE_BADVERS, transport), key, mac);
    if (q.opcode === OPCODE_NOTIFY)
      return this.finishSigned(this.error(body, this.zones.has(q.qname) ? RCODE_NOERROR : RCODE_REFUSED, transport, true), key, mac);
    if (q.qtype === T_AXFR || q.qtype === T_IXFR) return this.transfer(body, transport, remote, key, mac);
    const p = q.qclass === CLASS_IN || q.qclass === CLASS_ANY ? this.lookup(q.qname, q.qtype, (q.flags & 0x0100) !== 0) : undefined;
    const reply = p === undefined ? this.error(body, RCODE_REFUSED, transport) : this.assemble(body, p, transport, 160);
    return this.finishSigned(reply, key, mac);
  }
}

/** Runs a load to completion without yielding to anything. */
function runToEnd<T>(gen: Generator<void, T>): T {
  for (;;) {
    const r = gen.next();
    if (r.done === true) return r.value;
  }
}

/**
 * One table for all zones; a name belongs to the deepest hosted zone containing it. With one zone
 * (the usual case) that is the zone's own node map, shared rather than copied.
 */
function* nameTable(zones: ReadonlyMap<string, ZoneIndex>): Generator<void, Map<string, ZoneNode>> {
  if (zones.size === 1) for (const only of zones.values()) return only.nodes;
  const names = new Map<string, ZoneNode>();
  const origins = [...zones.keys()];
  let n = 0;
  for (const zone of zones.values()) {
    const deeper = origins.filter((o) => o !== zone.origin && (zone.origin === '' || o.endsWith(`.${zone.origin}`)));
    for (const [name, node] of zone.nodes) {
      if (++n % 1024 === 0) yield;
      if (deeper.some((o) => name === o || name.endsWith(`.${o}`))) continue;
      names.set(name, node);
    }
  }
  return names;
}

function addressOf(remote: string | (() => string)): string {
  return typeof remote === 'string' ? remote : remote();
}

function writeOpt(out: Buffer, at: number, udpSize: number, extendedRcode: number): void {
  out[at] = 0;
  out.writeUInt16BE(T_OPT, at + 1);
  out.writeUInt16BE(udpSize, at + 3);
  out.writeUInt32BE(((extendedRcode & 0xff) << 24) >>> 0, at + 5);
  out.writeUInt16BE(0, at + 9);
}

function headerOnly(msg: Buffer, rcode: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(msg.readUInt16BE(0), 0);
  out.writeUInt16BE(0x8000 | (msg.readUInt16BE(2) & 0x7910) | rcode, 2);
  return out;
}

function addCidr(list: BlockList, cidr: string): void {
  const [addr, bits] = cidr.split('/');
  if (addr === undefined) return;
  const family = isIPv4(addr) ? 'ipv4' : 'ipv6';
  const prefix = bits === undefined ? (family === 'ipv4' ? 32 : 128) : Number(bits);
  list.addSubnet(addr, prefix, family);
}
