/** Crafted DNS response messages for the transfer client's tests (zone example.test). */
import assert from 'node:assert/strict';
import { parseRdata, soaRR, writeRR } from '../../src/dns/rdata.ts';
import { TYPE_CODES, Writer } from '../../src/dns/wire.ts';
import type { SOA } from '../../src/dns/zone-content.ts';

const Z = 'example.test';
/** An SOA, or [owner, type, canonical rdata text, ttl?]. */
export type Crafted = SOA | [name: string, type: string, text: string, ttl?: number];

export function soa(serial: number, mname = `ns1.${Z}`): SOA {
  return { mname, rname: `hostmaster.${Z}`, serial, refresh: 3600, retry: 600, expire: 86400, minimum: 300, ttl: 3600 };
}

/** A response message holding `records` in its answer section. */
export function message(records: Crafted[], options: { id?: number; rcode?: number } = {}): Buffer {
  const w = new Writer({ initialSize: 1024 });
  w.u16(options.id ?? 1);
  w.u16(0x8400 | (options.rcode ?? 0));
  w.u16(0);
  w.u16(records.length);
  w.u16(0);
  w.u16(0);
  for (const r of records) {
    if (!Array.isArray(r)) {
      writeRR(w, Z, soaRR(r));
      continue;
    }
    const [name, typeName, text, ttl = 300] = r;
    const type = TYPE_CODES.get(typeName) ?? 0;
    const parsed = parseRdata(type, text);
    assert.ok(parsed !== undefined, `${typeName} ${text}`);
    writeRR(w, name, { type, ttl, parts: parsed.parts });
  }
  return w.finish();
}
