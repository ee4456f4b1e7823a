import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { ConfigError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import { parseHostPort } from './notify.ts';
import { DnsServer } from './server.ts';

describe('DnsServer configuration', () => {
  test('listen addresses', () => {
    assert.deepEqual(parseHostPort('127.0.0.1:5353', 53, 'f'), { host: '127.0.0.1', port: 5353 });
    assert.deepEqual(parseHostPort(':53', 53, 'f'), { host: '', port: 53 });
    assert.deepEqual(parseHostPort('[::1]:5353', 53, 'f'), { host: '::1', port: 5353 });
    assert.deepEqual(parseHostPort('10.0.0.1', 53, 'f'), { host: '10.0.0.1', port: 53 });
    assert.throws(() => parseHostPort('1.2.3.4:99999', 53, 'f'), ConfigError);
  });

  test('fromConfig validates flags and names the flag in errors', () => {
    const deps = { logger: silentLogger(), metrics: new Registry() };
    assert.ok(DnsServer.fromConfig({ dnsListen: ['127.0.0.1:0'], dnsTsigKey: ['hmac-sha256:k:c2VjcmV0'], dnsAllowTransfer: ['10.0.0.0/8', '::1'] }, deps));
    const flag = (fn: () => unknown): string | undefined => {
      try {
        fn();
      } catch (err) {
        return err instanceof ConfigError ? err.flag : `not a ConfigError: ${String(err)}`;
      }
      return undefined;
    };
    assert.equal(
      flag(() => DnsServer.fromConfig({ dnsListen: [] }, deps)),
      '--dns-listen',
    );
    assert.equal(
      flag(() => DnsServer.fromConfig({ dnsListen: ['x:1:2'] }, deps)),
      '--dns-listen',
    );
    assert.equal(
      flag(() => DnsServer.fromConfig({ dnsListen: [':53'], dnsWorkers: -1 }, deps)),
      '--dns-workers',
    );
    assert.equal(
      flag(() => DnsServer.fromConfig({ dnsListen: [':53'], dnsUdpSize: 100 }, deps)),
      '--dns-udp-size',
    );
    assert.equal(
      flag(() => DnsServer.fromConfig({ dnsListen: [':53'], dnsPacketCacheSize: -1 }, deps)),
      '--dns-packet-cache-size',
    );
    assert.equal(
      flag(() => DnsServer.fromConfig({ dnsListen: [':53'], dnsAllowTransfer: ['any'] }, deps)),
      '--dns-allow-transfer',
    );
    assert.equal(
      flag(() => DnsServer.fromConfig({ dnsListen: [':53'], dnsTsigKey: ['bad'] }, deps)),
      '--dns-tsig-key',
    );
    assert.equal(
      flag(() => DnsServer.fromConfig({ dnsListen: [':53'], dnsNotify: ['[::1'] }, deps)),
      '--dns-notify',
    );
  });

  test('a zone that cannot be indexed is logged, not thrown at the store', () => {
    const server = new DnsServer({ listen: ['127.0.0.1:0'], logger: silentLogger() });
    assert.doesNotThrow(() => server.zoneChanged({ origin: 'x.test', soa: null, rrsets: [] } as never));
  });
});
