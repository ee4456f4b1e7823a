/**
 * /readyz's DNS side on a real DnsServer in each mode (thread, inline, worker processes): with a
 * huge zone change under way, `Readiness` reports not ready (naming the zone) until the server
 * answers from the new content; whenever it reports ready, the zone's last name answers.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readiness } from '../../src/controller/health.ts';
import { silentLogger } from '../../src/log.ts';
import { DnsServer } from '../../src/dns/server/server.ts';
import type { DnsServerOptions } from '../../src/dns/server/server.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { udpExchange } from '../support/udp.ts';
import { aQuery } from '../support/udp-prober.ts';
import { hostsZone } from '../support/large-zone.ts';

const ORIGIN = 'huge.test';
const RECORDS = 150_000;

const hugeZone = (): ZoneContent => hostsZone(ORIGIN, RECORDS, 2);

async function answerCount(port: number, name: string): Promise<number> {
  const reply = await udpExchange(port, aQuery(7, name), 500);
  return reply === undefined ? -1 : reply.readUInt16BE(6);
}

const MODES: readonly { name: string; options: Partial<DnsServerOptions> }[] = [
  { name: 'thread', options: {} },
  { name: 'inline', options: { inline: true } },
  { name: 'worker processes', options: { workers: 1 } },
];

describe('readiness waits until the DNS server answers a huge zone', { timeout: 180_000 }, () => {
  for (const mode of MODES) {
    test(`${mode.name}: not ready while ${RECORDS} records load, with the reason; ready means answered`, async () => {
      const server = new DnsServer({ listen: ['127.0.0.1:0'], logger: silentLogger(), udpEngine: 'dgram', ...mode.options });
      // The sync side is ready: only the DNS server holds readiness back.
      const ready = new Readiness({ lastAttemptAt: 1, lastSuccessAt: 1, consecutiveFailures: 0 });
      ready.watchDns(() => server.servingState());
      assert.deepEqual(ready.report(), { ok: false, detail: 'the DNS server is not listening' });
      try {
        const port = (await server.start()).addresses[0]?.udp.port ?? 0;
        const last = `host-${RECORDS - 1}.${ORIGIN}`;
        const loaded = server.zoneChanged(hugeZone());
        let notReadySeen = 0;
        let readyAt = -1;
        // Bounded: the load finishes well within the loop on a busy machine (zoneChanged gives up at 30s).
        for (let i = 0; i < 3000 && readyAt < 0; i++) {
          const report = ready.report();
          const answers = await answerCount(port, last);
          if (report.ok) {
            assert.equal(answers, 1, `ready after ${notReadySeen} not-ready reports, yet ${last} does not answer`);
            readyAt = i;
          } else {
            assert.match(report.detail, new RegExp(`still loading 1 of 1 zones \\(${ORIGIN.replace('.', '\\.')}\\.?\\)`));
            notReadySeen++;
            await new Promise((r) => setTimeout(r, 5));
          }
        }
        assert.ok(readyAt >= 0, 'ready in the end');
        assert.ok(notReadySeen > 0, 'not ready while the zone loaded');
        await loaded;
        assert.deepEqual(server.servingState(), { listening: true, zones: 1, loading: [], failed: [] });
      } finally {
        await server.stop();
      }
      assert.equal(server.servingState().listening, false);
    });
  }
});
