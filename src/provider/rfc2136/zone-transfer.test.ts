import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderError } from '../../errors.ts';
import type { DnsTransport } from './transport.ts';
import { transferZone } from './zone-transfer.ts';

/** Answers the AXFR with one message carrying only a header and `rcode`. */
function refusing(rcode: number): DnsTransport {
  return {
    exchange: () => Promise.reject(new Error('not used')),
    transfer: (request, onMessage) => {
      const reply = Buffer.alloc(12);
      reply.writeUInt16BE(request.readUInt16BE(0), 0);
      reply.writeUInt16BE(0x8000 | rcode, 2);
      onMessage(reply);
      return Promise.resolve();
    },
  };
}

describe('transferZone errors', () => {
  const deps = (rcode: number): Parameters<typeof transferZone>[1] => ({
    transport: refusing(rcode),
    key: undefined,
    now: () => 0,
    id: () => 1,
    provider: 'rfc2136',
  });

  test('REFUSED says how to allow the transfer, or how to go without it (AXFR is on by default)', async () => {
    await assert.rejects(transferZone('example.test', deps(5)), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.code, 'PROVIDER_REFUSED');
      assert.match(err.message, /zone transfer of example\.test failed: REFUSED .*allow-transfer.*--no-rfc2136-axfr/);
      return true;
    });
  });

  test('other rcodes carry no hint; SERVFAIL is transient', async () => {
    await assert.rejects(transferZone('example.test', deps(2)), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.transient, true);
      assert.equal(err.message.includes('--no-rfc2136-axfr'), false);
      return true;
    });
  });
});
