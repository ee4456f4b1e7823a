/**
 * The Knot and NSD harnesses (test/support/knot.ts, nsd.ts) that `npm run bench:dns` uses as
 * peers: each starts on a free 127.0.0.1 port from a master file written into its own temp
 * directory, answers authoritatively, and leaves nothing behind when stopped.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { knotAvailable, startKnot } from '../support/knot.ts';
import { nsdAvailable, nsdBuild, startNsd } from '../support/nsd.ts';

const zone: ZoneContent = {
  origin: 'peer.test',
  soa: { mname: 'ns1.peer.test', rname: 'hostmaster.peer.test', serial: 7, refresh: 3600, retry: 600, expire: 86400, minimum: 300, ttl: 3600 },
  rrsets: [
    { name: 'peer.test', type: 'NS', ttl: 3600, rdata: ['ns1.peer.test'] },
    { name: 'ns1.peer.test', type: 'A', ttl: 3600, rdata: ['192.0.2.53'] },
    { name: 'www.peer.test', type: 'A', ttl: 300, rdata: ['192.0.2.1', '192.0.2.2'] },
    { name: '*.wild.peer.test', type: 'TXT', ttl: 300, rdata: ['wild'] },
  ],
};

for (const [name, available, start] of [
  ['knotd', knotAvailable, () => startKnot({ zones: [zone] })],
  ['nsd', nsdAvailable, () => startNsd({ zones: [zone], minimalResponses: true })],
] as const) {
  describe(`${name} harness`, async () => {
    const skip = !(await available()) || !(await digAvailable()) ? `${name} or dig not installed` : false;
    test('serves the zone from its master file and stops cleanly', { skip, timeout: 30_000 }, async () => {
      const server = await start();
      try {
        const www = await dig(server.port, ['www.peer.test', 'A']);
        assert.equal(www.status, 'NOERROR');
        assert.ok(www.flags.includes('aa'));
        assert.deepEqual([...www.answer].sort(), ['www.peer.test. 300 IN A 192.0.2.1', 'www.peer.test. 300 IN A 192.0.2.2']);
        assert.deepEqual((await dig(server.port, ['x.wild.peer.test', 'TXT'])).answer, ['x.wild.peer.test. 300 IN TXT "wild"']);
        const nx = await dig(server.port, ['nope.peer.test', 'A']);
        assert.equal(nx.status, 'NXDOMAIN');
        assert.match(nx.authority[0] ?? '', /SOA ns1\.peer\.test\. hostmaster\.peer\.test\. 7 /);
      } finally {
        await server.stop();
      }
      assert.equal(existsSync(server.dir), false);
    });
  });
}

test('nsdBuild reads the configure line', { skip: !(await nsdAvailable()) }, async () => {
  const build = await nsdBuild();
  assert.match(build.version, /^4\./);
  assert.equal(typeof build.ratelimit, 'boolean');
});
