import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { ConfigError, SourceError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import type { SourceProblem } from '../source.ts';
import { ConnectorSource, parseServer } from './connector-source.ts';

/**
 * What Go's encoder writes (test/support/gob/encode-endpoints.go, go1.19) for four endpoints:
 * a.example.org A 192.0.2.1 (labels team=blue, provider-specific alias=true), a.example.org A
 * 192.0.2.2, bad.example.org A not-an-ip, w.example.org A 192.0.2.9 (set identifier eu, TTL 300).
 */
const FOUR = Buffer.from(
  '0dff8b020102ff8c0001ff82000076ff81030102ff820001070107444e534e616d65010c0001075461726765747301ff8400010a5265636f726454797065010c00010d5365744964656e746966696572010c0001095265636f726454544c01040001064c6162656c7301ff8600011050726f7669646572537065636966696301ff8a00000015ff83020101075461726765747301ff8400010c000016ff85040101064c6162656c7301ff8600010c010c00001fff890201011050726f7669646572537065636966696301ff8a0001ff88000039ff870301011850726f7669646572537065636966696350726f706572747901ff8800010201044e616d65010c00010556616c7565010c000000ffa6ff8c0004010d612e6578616d706c652e6f72670101093139322e302e322e310101410301047465616d04626c756501010105616c6961730104747275650000010d612e6578616d706c652e6f72670101093139322e302e322e3201014100010f6261642e6578616d706c652e6f72670101096e6f742d616e2d697001014100010d772e6578616d706c652e6f72670101093139322e302e322e390101410102657501fe025800',
  'hex',
);

async function serve(handler: (socket: Socket) => void): Promise<{ server: Server; address: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, address: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = (server: Server): Promise<unknown> => new Promise((resolve) => server.close(resolve));

test('parseServer: host:port and [v6]:port; anything else stops start-up naming the flag', () => {
  assert.deepEqual(parseServer('localhost:8080'), { host: 'localhost', port: 8080 });
  assert.deepEqual(parseServer('[::1]:9000'), { host: '::1', port: 9000 });
  assert.deepEqual(parseServer(':8080'), { host: 'localhost', port: 8080 });
  for (const bad of ['localhost', 'localhost:0', 'host:99999', '::1:80'])
    assert.throws(
      () => parseServer(bad),
      (err: unknown) => err instanceof ConfigError && err.flag === '--connector-source-server',
      bad,
    );
});

test('endpoints sent a byte at a time are decoded, merged as upstream, and an invalid one is reported and skipped', async () => {
  const { server, address } = await serve((socket) => {
    // Every byte its own write: the decoder must wait for whole messages.
    let i = 0;
    const next = (): void => {
      if (i >= FOUR.length) {
        socket.end();
        return;
      }
      socket.write(FOUR.subarray(i, i + 1), next);
      i++;
    };
    next();
  });
  const problems: SourceProblem[] = [];
  try {
    const source = new ConnectorSource({ server: address, logger: silentLogger(), onProblem: (p) => problems.push(p), timeoutMs: 10_000 });
    const eps = await source.endpoints();
    const a = eps.find((e) => e.dnsName === 'a.example.org');
    assert.deepEqual(a?.targets, ['192.0.2.1', '192.0.2.2']);
    assert.equal(a?.labels['team'], 'blue');
    assert.deepEqual(a?.providerSpecific, [{ name: 'alias', value: 'true' }]);
    const w = eps.find((e) => e.dnsName === 'w.example.org');
    assert.equal(w?.setIdentifier, 'eu');
    assert.equal(w?.recordTTL, 300);
    assert.equal(eps.length, 2);
    assert.equal(problems.length, 1);
    assert.match(problems[0]?.message ?? '', /connector: endpoint A bad\.example\.org from 127\.0\.0\.1:\d+ skipped/);
  } finally {
    await close(server);
  }
});

test('a server that closes early, sends garbage or says nothing fails the sync with a transient error naming it', async () => {
  const cases: [string, (socket: Socket) => void, RegExp][] = [
    ['closed early', (s) => s.end(FOUR.subarray(0, 100)), /closed before a complete gob value/],
    ['nothing', (s) => s.end(), /closed the connection without sending anything/],
    // A value of type 72, which no message defined.
    ['garbage', (s) => s.end(Buffer.from('03ff9000', 'hex')), /not a gob stream of endpoints: type 72 was never defined/],
    ['silent', () => undefined, /no complete answer within/],
  ];
  for (const [name, handler, message] of cases) {
    const { server, address } = await serve(handler);
    try {
      const source = new ConnectorSource({ server: address, logger: silentLogger(), timeoutMs: 300 });
      await assert.rejects(source.endpoints(), (err: unknown) => {
        assert.ok(err instanceof SourceError && err.transient, name);
        assert.match(err.message, new RegExp(`connector: reading endpoints from ${address} failed: `), name);
        assert.match(err.message, message, name);
        return true;
      });
    } finally {
      await close(server);
    }
  }
});

test('nobody listening: a transient error naming the server; the next sync tries again', async () => {
  const { server, address } = await serve((s) => s.end(FOUR));
  await close(server);
  const source = new ConnectorSource({ server: address, logger: silentLogger(), timeoutMs: 2000 });
  await assert.rejects(source.endpoints(), /connector: reading endpoints from 127\.0\.0\.1:\d+ failed: .*ECONNREFUSED/);
  let fired = false;
  source.addEventHandler(() => (fired = true))();
  assert.equal(fired, false);
});
