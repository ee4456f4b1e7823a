/**
 * Random and mutated DNS messages for fuzzing the query path (src/dns/fuzz.test.ts and
 * bench/dns/fuzz.ts). Deterministic for a given seed so failures can be replayed.
 */
import { Responder } from '../../src/dns/server/responder.ts';
import { silentLogger } from '../../src/log.ts';
import { sampleZone } from './sample-zone.ts';

export function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    // xorshift32
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

const NAMES = [
  'www.example.test',
  'WWW.example.TEST',
  'nx.example.test',
  'foo.wild.example.test',
  'alias2.example.test',
  'big.example.test',
  'c.deep.example.test',
  'x.sub.example.test',
  'example.test',
  'example.org',
  '',
  'loop1.example.test',
  'long.example.test',
];
const TYPES = [1, 2, 5, 6, 12, 15, 16, 28, 33, 41, 250, 251, 252, 255, 257, 0, 65535];

function encodeName(name: string): Buffer {
  if (name === '') return Buffer.from([0]);
  return Buffer.concat([...name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l, 'latin1')]), Buffer.from([0])]);
}

/** A well-formed query, sometimes with EDNS (any version, any size) or junk records. */
export function validQuery(r: (n: number) => number): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(r(65536), 0);
  head.writeUInt16BE(r(2) === 0 ? 0x0100 : r(65536) & 0x7fff, 2);
  head.writeUInt16BE(1, 4);
  const parts: Buffer[] = [head, encodeName(NAMES[r(NAMES.length)] ?? ''), Buffer.from([0, TYPES[r(TYPES.length)] ?? 1, 0, 1])];
  (parts[2] as Buffer).writeUInt16BE(TYPES[r(TYPES.length)] ?? 1, 0);
  (parts[2] as Buffer).writeUInt16BE(r(4) === 0 ? r(65536) : 1, 2);
  let ar = 0;
  if (r(2) === 0) {
    const opt = Buffer.alloc(11);
    opt.writeUInt16BE(41, 1);
    opt.writeUInt16BE(r(70000) & 0xffff, 3);
    opt[6] = r(4) === 0 ? r(256) : 0;
    parts.push(opt);
    ar++;
  }
  if (r(8) === 0) {
    const tsig = Buffer.concat([encodeName('key'), Buffer.from([0, 250, 0, 255, 0, 0, 0, 0, 0, 4, 1, 2, 3, 4])]);
    parts.push(tsig);
    ar++;
  }
  head.writeUInt16BE(ar, 10);
  return Buffer.concat(parts);
}

/** A valid query with a few bytes flipped, inserted, removed or truncated. */
export function mutated(r: (n: number) => number): Buffer {
  let b = Buffer.from(validQuery(r));
  const ops = 1 + r(4);
  for (let i = 0; i < ops; i++) {
    const op = r(4);
    if (op === 0 && b.length > 0) b[r(b.length)] = r(256);
    else if (op === 1) b = b.subarray(0, r(b.length + 1));
    else if (op === 2) {
      const at = r(b.length + 1);
      b = Buffer.concat([b.subarray(0, at), Buffer.from([r(256), r(256)]), b.subarray(at)]);
    } else if (b.length > 13) b.writeUInt16BE(r(65536), 4 + 2 * r(4));
  }
  return b;
}

export function randomBytes(r: (n: number) => number): Buffer {
  const b = Buffer.alloc(r(80));
  for (let i = 0; i < b.length; i++) b[i] = r(256);
  // Mostly look like queries so that deeper code is reached.
  if (b.length > 2 && r(2) === 0) b[2] = (b[2] ?? 0) & 0x7f;
  return b;
}

export function packet(r: (n: number) => number): Buffer {
  const k = r(3);
  return k === 0 ? validQuery(r) : k === 1 ? mutated(r) : randomBytes(r);
}

export function fuzzResponder(): Responder {
  const r = new Responder({ logger: silentLogger(), allowTransfer: ['127.0.0.0/8'] });
  r.setZone(sampleZone());
  return r;
}

export interface FuzzStats {
  packets: number;
  replies: number;
  dropped: number;
  failures: string[];
}

/**
 * Feeds `count` packets through the query path. A failure is a throw, a reply that dns-packet
 * cannot decode, or a reply whose ID differs from the query's.
 */
export function fuzz(count: number, seed: number, decode: (b: Buffer) => unknown): FuzzStats {
  const r = rng(seed);
  const responder = fuzzResponder();
  const stats: FuzzStats = { packets: 0, replies: 0, dropped: 0, failures: [] };
  for (let i = 0; i < count; i++) {
    const p = packet(r);
    stats.packets++;
    const transport = r(4) === 0 ? 'tcp' : 'udp';
    let reply: Buffer | Buffer[] | undefined;
    try {
      reply = responder.handle(p, transport, '127.0.0.1');
    } catch (err) {
      stats.failures.push(`throw on ${p.toString('hex')}: ${String(err)}`);
      continue;
    }
    if (reply === undefined) {
      stats.dropped++;
      continue;
    }
    for (const m of Array.isArray(reply) ? reply : [reply]) {
      stats.replies++;
      if (m.readUInt16BE(0) !== p.readUInt16BE(0)) stats.failures.push(`id mismatch for ${p.toString('hex')}`);
      try {
        decode(m);
      } catch (err) {
        stats.failures.push(`undecodable reply ${m.toString('hex')} to ${p.toString('hex')}: ${String(err)}`);
      }
    }
    if (stats.failures.length > 20) break;
  }
  return stats;
}
