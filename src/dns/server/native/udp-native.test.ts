import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { udpExchange } from '../../../../test/support/udp.ts';
import { loadNativeUdp } from './udp-native.ts';
import type { NativeUdpAddon } from './udp-native.ts';

const addon = loadNativeUdp();
const skip = addon === undefined ? 'native addon not built (npm run build:native)' : false;
const SLOT = 2048;

function buffers(a: NativeUdpAddon): { input: Buffer; output: Buffer; meta: Buffer; lengths: Int32Array } {
  const meta = Buffer.alloc(8 * a.batch);
  return {
    input: Buffer.alloc(SLOT * a.batch),
    output: Buffer.alloc(SLOT * a.batch),
    meta,
    lengths: new Int32Array(meta.buffer, meta.byteOffset, 2 * a.batch),
  };
}

describe('native UDP addon', { skip }, () => {
  const a = addon as NativeUdpAddon;

  test('echoes a batch through the shared buffers; peer() gives the source address', async () => {
    const b = buffers(a);
    const peers: string[] = [];
    const h = a.open('127.0.0.1', 0, false, b.input, b.output, b.meta, SLOT, SLOT, (n) => {
      for (let i = 0; i < n; i++) {
        const len = b.lengths[2 * i] ?? 0;
        b.input.copy(b.output, i * SLOT, i * SLOT, i * SLOT + len);
        b.output[i * SLOT] = 0x42;
        b.lengths[2 * i + 1] = len;
        peers.push(a.peer(h, i));
      }
    });
    try {
      const port = a.port(h);
      assert.ok(port > 0);
      const reply = await udpExchange(port, Buffer.from('xhello'));
      assert.equal(reply?.toString(), 'Bhello');
      assert.deepEqual(peers, ['127.0.0.1']);
      // drops, receive errors, truncated, then the packet cache's (off here) hits, misses, entries, bytes, inserts
      assert.deepEqual(a.stats(h), [0, 0, 0, 0, 0, 0, 0, 0]);
    } finally {
      a.close(h);
    }
  });

  test('length 0 means no reply; oversized datagrams are marked -1 and counted', async () => {
    const b = buffers(a);
    const seen: number[] = [];
    const h = a.open('127.0.0.1', 0, false, b.input, b.output, b.meta, SLOT, SLOT, (n) => {
      for (let i = 0; i < n; i++) seen.push(b.lengths[2 * i] ?? 0);
    });
    try {
      assert.equal(await udpExchange(a.port(h), Buffer.alloc(SLOT + 1), 300), undefined);
      assert.equal(await udpExchange(a.port(h), Buffer.alloc(0), 300), undefined);
      assert.deepEqual(seen, [-1, 0]);
      assert.equal(a.stats(h)[2], 1);
    } finally {
      a.close(h);
    }
  });

  test('close() inside the batch handler is safe and frees the port at once', async () => {
    const b = buffers(a);
    let calls = 0;
    const h: unknown = a.open('127.0.0.1', 0, false, b.input, b.output, b.meta, SLOT, SLOT, (n) => {
      calls++;
      b.lengths[1] = n; // a reply that must not be sent: the socket is closed
      a.close(h);
    });
    const port = a.port(h);
    assert.equal(await udpExchange(port, Buffer.from('one'), 300), undefined);
    assert.equal(calls, 1);
    assert.throws(() => a.port(h), /closed/);
    a.close(h); // idempotent
    const again = a.open('127.0.0.1', port, false, b.input, b.output, b.meta, SLOT, SLOT, () => undefined);
    a.close(again);
  });

  test('bind errors carry the errno name; SO_REUSEPORT lets two sockets share a port', () => {
    const b = buffers(a);
    const noop = (): void => undefined;
    const first = a.open('127.0.0.1', 0, false, b.input, b.output, b.meta, SLOT, SLOT, noop);
    try {
      assert.throws(
        () => a.open('127.0.0.1', a.port(first), false, b.input, b.output, b.meta, SLOT, SLOT, noop),
        (e: NodeJS.ErrnoException) => e.code === 'EADDRINUSE',
      );
    } finally {
      a.close(first);
    }
    const r1 = a.open('127.0.0.1', 0, true, b.input, b.output, b.meta, SLOT, SLOT, noop);
    const r2 = a.open('127.0.0.1', a.port(r1), true, b.input, b.output, b.meta, SLOT, SLOT, noop);
    assert.equal(a.port(r2), a.port(r1));
    a.close(r1);
    a.close(r2);
    assert.throws(
      () => a.open('not-an-ip', 0, false, b.input, b.output, b.meta, SLOT, SLOT, noop),
      (e: NodeJS.ErrnoException) => e.code === 'EINVAL',
    );
  });

  test('bad arguments are TypeErrors, never a crash', () => {
    const b = buffers(a);
    const noop = (): void => undefined;
    assert.throws(() => a.open('127.0.0.1', 0, false, Buffer.alloc(10), b.output, b.meta, SLOT, SLOT, noop), TypeError);
    assert.throws(() => a.open('127.0.0.1', 70000, false, b.input, b.output, b.meta, SLOT, SLOT, noop), TypeError);
    assert.throws(() => a.open('127.0.0.1', 0, false, b.input, b.output, b.meta, SLOT, SLOT, 'x' as never), TypeError);
    assert.throws(() => a.port({}), /closed|bad/);
    assert.throws(() => a.peer(undefined, 0), TypeError);
    assert.throws(() => a.close(42), TypeError);
    const h = a.open('127.0.0.1', 0, false, b.input, b.output, b.meta, SLOT, SLOT, noop);
    try {
      assert.throws(() => a.cache(h, -1, 0, Buffer.alloc(4 * a.batch), Buffer.alloc(8)), TypeError);
      assert.throws(() => a.cache(h, 16, 4096, Buffer.alloc(4), Buffer.alloc(8)), TypeError, 'insert marks for a whole batch');
      assert.throws(() => a.flush({}), TypeError);
    } finally {
      a.close(h);
    }
  });

  test('IPv6 "::" also takes IPv4 (IPV6_V6ONLY off), like dgram with ipv6Only: false', async (t) => {
    const b = buffers(a);
    let h: unknown;
    try {
      h = a.open('::', 0, false, b.input, b.output, b.meta, SLOT, SLOT, (n) => {
        for (let i = 0; i < n; i++) {
          b.output.write(a.peer(h, i), i * SLOT);
          b.lengths[2 * i + 1] = Buffer.byteLength(a.peer(h, i));
        }
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAFNOSUPPORT') return t.skip('no IPv6');
      throw err;
    }
    try {
      assert.equal((await udpExchange(a.port(h), Buffer.from('?')))?.toString(), '::ffff:127.0.0.1');
    } finally {
      a.close(h);
    }
  });
});
