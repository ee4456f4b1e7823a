/**
 * AXFR responses (RFC 5936): the zone's SOA, every record, and the SOA again, packed into as few
 * TCP messages as fit (each with its own compression table).
 */
import { writeRR } from '../rdata.ts';
import type { WireRR } from '../rdata.ts';
import { Writer } from '../wire.ts';
import type { ZoneIndex } from './zone-index.ts';

/** Below the 64 KiB TCP limit, leaving room for a TSIG record. */
const MESSAGE_LIMIT = 16_000;

export function transferMessages(zone: ZoneIndex, id: number, question: Uint8Array, limit = MESSAGE_LIMIT): Buffer[] {
  return packMessages(id, question, axfrRecords(zone), limit);
}

function* axfrRecords(zone: ZoneIndex): Generator<{ owner: string; rr: WireRR }> {
  yield { owner: zone.origin, rr: zone.soa };
  yield* zone.records();
  yield { owner: zone.origin, rr: zone.soa };
}

/**
 * Packs records into answer messages of at most `limit` bytes each (IXFR uses it too); a record
 * larger than the limit goes out alone.
 */
export function packMessages(id: number, question: Uint8Array, records: Iterable<{ owner: string; rr: WireRR }>, limit = MESSAGE_LIMIT): Buffer[] {
  const messages: Buffer[] = [];
  let w = start(id, question);
  let count = 0;
  const add = (owner: string, rr: WireRR): void => {
    if (writeRR(w, owner, rr, limit)) {
      count++;
      return;
    }
    if (count === 0) {
      // A single record larger than the soft limit still has to go out on its own.
      writeRR(w, owner, rr);
      count++;
      return;
    }
    messages.push(finish(w, count));
    w = start(id, question);
    count = 0;
    add(owner, rr);
  };
  for (const { owner, rr } of records) add(owner, rr);
  messages.push(finish(w, count));
  return messages;
}

function start(id: number, question: Uint8Array): Writer {
  const w = new Writer({ initialSize: 4096 });
  w.u16(id);
  w.u16(0x8400); // QR, AA
  w.u16(question.length > 0 ? 1 : 0);
  w.u16(0);
  w.u16(0);
  w.u16(0);
  w.bytes(question);
  return w;
}

function finish(w: Writer, count: number): Buffer {
  const out = w.finish();
  out.writeUInt16BE(count, 6);
  return out;
}
