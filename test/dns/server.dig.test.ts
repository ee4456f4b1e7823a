/** The embedded DNS server on real sockets, queried with Debian's dig. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { udpExchange } from '../support/udp.ts';
import { connect } from 'node:net';
import { Registry } from 'prom-client';
import { DnsServer } from '../../src/dns/server/server.ts';
import { parseTsigKey } from '../../src/dns/tsig.ts';
import { silentLogger } from '../../src/log.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { sampleZone } from './sample-zone.ts';

const SECRET = Buffer.from('hostwarden-test-secret-0123456789').toString('base64');

function query(id: number, name: string, type: number, flags = 0x0100): Buffer {
  const labels = name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id, 0);
  head.writeUInt16BE(flags, 2);
  head.writeUInt16BE(1, 4);
  const tail = Buffer.alloc(5);
  tail.writeUInt16BE(type, 1);
  tail.writeUInt16BE(1, 3);
  return Buffer.concat([head, ...labels, tail]);
}

describe('DnsServer with dig', async () => {
  const available = await digAvailable();
  const skip = available ? false : 'dig not installed (apt-get install bind9-dnsutils)';
  let open: DnsServer | undefined;
  let closed: DnsServer | undefined;
  let port = 0;
  let closedPort = 0;
  const metrics = new Registry();

  before(async () => {
    open = new DnsServer({ listen: ['127.0.0.1:0'], allowTransfer: ['127.0.0.0/8'], logger: silentLogger(), metrics, tcpIdleTimeoutMs: 500 });
    open.zoneChanged(sampleZone());
    port = (await open.start()).addresses[0]?.udp.port ?? 0;
    closed = new DnsServer({
      listen: ['127.0.0.1:0'],
      allowTransfer: ['10.0.0.0/8'],
      tsigKeys: [parseTsigKey(`hmac-sha256:xfr-key:${SECRET}`)],
      logger: silentLogger(),
    });
    closed.zoneChanged(sampleZone());
    closedPort = (await closed.start()).addresses[0]?.udp.port ?? 0;
  });

  after(async () => {
    await open?.stop();
    await closed?.stop();
  });

  test('A, AAAA and authoritative flag', { skip }, async () => {
    const r = await dig(port, ['www.example.test', 'A']);
    assert.equal(r.status, 'NOERROR');
    assert.ok(r.flags.includes('aa'));
    assert.deepEqual(r.answer.sort(), ['www.example.test. 60 IN A 192.0.2.1', 'www.example.test. 60 IN A 192.0.2.2']);
    const v6 = await dig(port, ['www.example.test', 'AAAA']);
    assert.deepEqual(v6.answer, ['www.example.test. 60 IN AAAA 2001:db8::1']);
  });

  test('CNAME chains are followed inside the zone', { skip }, async () => {
    const r = await dig(port, ['alias2.example.test', 'A']);
    assert.deepEqual(r.answer.slice(0, 2), ['alias2.example.test. 120 IN CNAME alias.example.test.', 'alias.example.test. 120 IN CNAME www.example.test.']);
    assert.equal(r.answer.length, 4);
    const dangling = await dig(port, ['dangling.example.test', 'A']);
    assert.equal(dangling.status, 'NXDOMAIN');
    assert.equal(dangling.answer.length, 1);
  });

  test('TXT values longer than 255 bytes are split into character-strings', { skip }, async () => {
    const r = await dig(port, ['long.example.test', 'TXT']);
    const long = r.answer.find((a) => a.includes('xxx')) ?? '';
    assert.match(long, /"x{255}" "x{45}"$/);
  });

  test('wildcards synthesise, but not for existing names or empty non-terminals', { skip }, async () => {
    const hit = await dig(port, ['anything.wild.example.test', 'A']);
    assert.deepEqual(hit.answer, ['anything.wild.example.test. 300 IN A 192.0.2.99']);
    const exists = await dig(port, ['exists.wild.example.test', 'A']);
    assert.equal(exists.status, 'NOERROR');
    assert.deepEqual(exists.answer, []);
    assert.match(exists.authority[0] ?? '', /SOA/);
  });

  test('empty non-terminal is NODATA, missing name is NXDOMAIN with the SOA (negative TTL)', { skip }, async () => {
    const ent = await dig(port, ['c.deep.example.test', 'A']);
    assert.equal(ent.status, 'NOERROR');
    assert.deepEqual(ent.answer, []);
    const nx = await dig(port, ['nothing.example.test', 'A']);
    assert.equal(nx.status, 'NXDOMAIN');
    assert.deepEqual(nx.authority, ['example.test. 300 IN SOA ns1.example.test. hostmaster.example.test. 1 3600 600 86400 300']);
  });

  test('names outside every zone are REFUSED; delegations are referrals', { skip }, async () => {
    assert.equal((await dig(port, ['www.example.org', 'A'])).status, 'REFUSED');
    const ref = await dig(port, ['host.sub.example.test', 'A']);
    assert.equal(ref.status, 'NOERROR');
    assert.ok(!ref.flags.includes('aa'));
    assert.deepEqual(ref.authority, ['sub.example.test. 300 IN NS ns.sub.example.test.']);
    assert.deepEqual(ref.additional, ['ns.sub.example.test. 300 IN A 192.0.2.200']);
  });

  test('the query spelling is preserved in question and answer owner', { skip }, async () => {
    const r = await dig(port, ['WwW.ExAmple.TEST', 'A']);
    assert.match(r.raw, /;WwW\.ExAmple\.TEST\.\s+IN\s+A/);
    assert.ok(r.answer.every((a) => a.startsWith('WwW.ExAmple.TEST. ')));
  });

  test('large answers set TC over UDP and dig retries over TCP', { skip }, async () => {
    const udp = await dig(port, ['+ignore', 'big.example.test', 'TXT']);
    assert.ok(udp.flags.includes('tc'));
    assert.deepEqual(udp.answer, []);
    const full = await dig(port, ['big.example.test', 'TXT']);
    assert.ok(full.retriedTcp);
    assert.equal(full.answer.length, 40);
  });

  test('EDNS: advertised size is honoured, OPT echoed, BADVERS for version 1', { skip }, async () => {
    const small = await dig(port, ['+ignore', '+bufsize=512', 'big.example.test', 'TXT']);
    assert.ok(small.flags.includes('tc'));
    const large = await dig(port, ['+ignore', '+bufsize=4096', 'big.example.test', 'TXT']);
    // Our limit is 1232 even when the client offers more; 40 records need about 3 KB.
    assert.ok(large.flags.includes('tc'));
    assert.match(large.raw, /udp: 1232/);
    const v1 = await dig(port, ['+edns=1', '+noednsnegotiation', 'www.example.test', 'A']);
    assert.equal(v1.status, 'BADVERS');
    const noEdns = await dig(port, ['+noedns', 'www.example.test', 'A']);
    assert.doesNotMatch(noEdns.raw, /OPT PSEUDOSECTION/);
  });

  test('AXFR is allowed by CIDR, refused otherwise, and allowed with a TSIG key', { skip }, async () => {
    const ok = await dig(port, ['example.test', 'AXFR']);
    assert.match(ok.raw, /XFR size: \d+ records/);
    const records = ok.raw.split('\n').filter((l) => /\sIN\s/.test(l) && !l.startsWith(';'));
    assert.match(records[0] ?? '', /SOA/);
    assert.match(records[records.length - 1] ?? '', /SOA/);
    const refused = await dig(closedPort, ['example.test', 'AXFR']);
    assert.match(refused.raw, /Transfer failed/);
    const signed = await dig(closedPort, ['-y', `hmac-sha256:xfr-key:${SECRET}`, 'example.test', 'AXFR']);
    assert.match(signed.raw, /XFR size: \d+ records/);
    assert.doesNotMatch(signed.raw, /tsig verify failure|Transfer failed/i);
    const wrong = await dig(closedPort, ['-y', `hmac-sha256:xfr-key:${Buffer.from('wrong').toString('base64')}`, 'example.test', 'AXFR']);
    assert.match(wrong.raw, /Transfer failed|BADSIG|NOTAUTH/);
  });

  test('signed ordinary queries get signed answers', { skip }, async () => {
    const r = await dig(closedPort, ['-y', `hmac-sha256:xfr-key:${SECRET}`, 'www.example.test', 'A']);
    assert.equal(r.status, 'NOERROR');
    assert.doesNotMatch(r.raw, /tsig verify failure|expected a TSIG/i);
    assert.match(r.raw, /TSIG PSEUDOSECTION/);
  });

  test('malformed and odd packets: dropped, FORMERR or NOTIMP, and the server keeps answering', async () => {
    assert.equal(await udpExchange(port, Buffer.from([1, 2, 3]), 300), undefined);
    const response = query(7, 'www.example.test', 1, 0x8000);
    assert.equal(await udpExchange(port, response, 300), undefined);
    const twoQuestions = query(8, 'www.example.test', 1);
    twoQuestions.writeUInt16BE(2, 4);
    assert.equal(((await udpExchange(port, twoQuestions))?.[3] ?? 0) & 0xf, 1);
    const update = query(9, 'example.test', 6, 5 << 11);
    assert.equal(((await udpExchange(port, update))?.[3] ?? 0) & 0xf, 4);
    const good = await udpExchange(port, query(10, 'www.example.test', 1));
    assert.equal(good?.readUInt16BE(0), 10);
    assert.equal(good?.readUInt16BE(6), 2);
  });

  test('TCP: several pipelined queries on one connection, answered in order; idle connections close', async () => {
    const sock = connect(port, '127.0.0.1');
    const frames = [11, 12, 13].map((id) => {
      const q = query(id, 'www.example.test', 1);
      const len = Buffer.alloc(2);
      len.writeUInt16BE(q.length);
      return Buffer.concat([len, q]);
    });
    sock.write(Buffer.concat(frames));
    const ids: number[] = [];
    let buf = Buffer.alloc(0);
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5000);
      sock.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          ids.push(buf.readUInt16BE(2));
          buf = buf.subarray(2 + buf.readUInt16BE(0));
        }
      });
      sock.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
      sock.on('error', () => undefined);
    });
    assert.deepEqual(ids, [11, 12, 13]);
    assert.ok(closed, 'idle connection closed by the server');
  });

  test('metrics count queries by rcode, type and transport', async () => {
    const text = await metrics.metrics();
    assert.match(text, /hostwarden_dns_queries_total\{rcode="NOERROR",qtype="A",transport="udp"\} \d+/);
    assert.match(text, /hostwarden_dns_zones 1/);
    assert.match(text, /hostwarden_dns_query_duration_seconds_count \d+/);
  });

  test('zone changes are visible to the next query', async () => {
    const zone = sampleZone('example.test', 2);
    zone.rrsets.push({ name: 'new.example.test', type: 'A', ttl: 30, rdata: ['192.0.2.123'] });
    await open?.zoneChanged(zone);
    const reply = await udpExchange(port, query(20, 'new.example.test', 1));
    assert.equal(reply?.readUInt16BE(6), 1);
    assert.deepEqual([...(reply?.subarray(reply.length - 4) ?? [])], [192, 0, 2, 123]);
  });
});
