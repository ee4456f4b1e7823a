/**
 * NAPTR and DNAME on the hosted services, through their emulators and a real etcd: Route53 holds
 * NAPTR but has no DNAME; Azure DNS and CoreDNS's etcd format hold neither. Where the service has
 * no such type, the provider skips that endpoint with a warning naming it, and everything else of
 * the sync goes through.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { TokenCredential } from '@azure/identity';
import { ChangeResourceRecordSetsCommand, Route53Client } from '@aws-sdk/client-route-53';
import { DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { createLogger } from '../../src/log.ts';
import type { Logger } from '../../src/log.ts';
import { AzureProvider } from '../../src/provider/azure/azure.ts';
import { SdkAzureDnsApi } from '../../src/provider/azure/client.ts';
import { CoreDnsProvider } from '../../src/provider/coredns/coredns.ts';
import { EtcdClient } from '../../src/provider/coredns/etcd-client.ts';
import type { Provider } from '../../src/provider/provider.ts';
import { awsProvider, isolateAwsSdk } from '../support/aws/provider.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import { ArmDnsEmulator } from '../support/azure/arm-dns-emulator.ts';
import { etcdAvailable, startEtcd } from '../support/etcd.ts';
import type { EtcdServer } from '../support/etcd.ts';
import { NAPTR_TARGETS, OWNER, desiredFor, find, scenario } from '../support/naptr-dname-scenario.ts';
import { makeSelfSignedCert, opensslUnavailable } from '../support/tls.ts';
import type { SelfSignedCert } from '../support/tls.ts';

isolateAwsSdk();

/** A logger whose warnings the test reads. */
function capturingLogger(): { logger: Logger; warnings: () => { msg: string; record?: string }[] } {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) =>
    lines.push(
      ...c
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== ''),
    ),
  );
  const logger = createLogger('warn', 'json', stream);
  return { logger, warnings: () => lines.map((l) => JSON.parse(l) as { msg: string; record?: string }) };
}

/** Syncs the scenario; returns the applied creates as "name type" and the provider's records after. */
async function syncSkipping(provider: Provider, zone: string): Promise<string[]> {
  const s = scenario(provider, zone);
  const changes = await s.sync(desiredFor(zone));
  assert.equal(await s.sync(desiredFor(zone)), undefined, 'a second sync changes nothing (the skipped endpoints plan no change)');
  return (changes?.create ?? []).map((e) => `${e.dnsName} ${e.recordType}`).sort();
}

describe('aws provider: NAPTR stored as Route53 documents it; DNAME skipped', () => {
  let e: AwsEmulators;
  before(async () => {
    e = await startAwsEmulators();
  });
  after(async () => {
    await e?.stop();
  });

  test('NAPTR and the A record sync and read back; DNAME is skipped with a warning naming it', async () => {
    const zone = e.route53.createZone('example.org');
    const { logger, warnings } = capturingLogger();
    const provider = await awsProvider(e, {}, { logger });
    assert.deepEqual(await syncSkipping(provider, 'example.org'), ['_sip._udp.example.org NAPTR', 'www.example.org A']);
    const stored = e.route53.find(zone, '_sip._udp.example.org', 'NAPTR');
    assert.deepEqual([...(stored?.values ?? [])].sort(), [...NAPTR_TARGETS].sort());
    assert.ok(e.route53.find(zone, 'naptr-_sip._udp.example.org', 'TXT') !== undefined);
    assert.equal(e.route53.find(zone, 'old.example.org', 'DNAME'), undefined);
    const listed = await scenario(provider, 'example.org').registry.records();
    assert.equal(find(listed, '_sip._udp.example.org', 'NAPTR')?.labels['owner'], OWNER);
    const skipped = warnings().filter((w) => w.record === 'old.example.org DNAME');
    assert.ok(skipped.length > 0 && /Route53 has no DNAME record type/.test(skipped[0]?.msg ?? ''), JSON.stringify(warnings()));
  });

  test('the emulator refuses what Route53 refuses: a DNAME set, a NAPTR with both regexp and replacement', async () => {
    const zone = e.route53.createZone('refuse.test');
    const r53 = new Route53Client({
      region: 'us-east-1',
      endpoint: e.url,
      credentials: { accessKeyId: e.aws.rootIdentity.accessKeyId, secretAccessKey: e.aws.rootIdentity.secretAccessKey },
      maxAttempts: 1,
    });
    const put = (Type: 'DNAME' | 'NAPTR', Value: string): Promise<unknown> =>
      r53.send(
        new ChangeResourceRecordSetsCommand({
          HostedZoneId: zone.id,
          ChangeBatch: {
            Changes: [{ Action: 'CREATE', ResourceRecordSet: { Name: 'x.refuse.test', Type: Type as 'NAPTR', TTL: 60, ResourceRecords: [{ Value }] } }],
          },
        }),
      );
    await assert.rejects(put('DNAME', 'a.example.net.'), /failed to satisfy constraint/);
    await assert.rejects(put('NAPTR', '1 1 "u" "" "!^.*$!x!" y.example.net.'), /NAPTRReplacementMustBeDotWithRegexp/);
    await assert.rejects(put('NAPTR', '1 1 u "" "" .'), /InvalidNAPTRFormat/);
    await put('NAPTR', '1 1 "u" "" "!^.*$!x!" .');
  });
});

const armSkip = await opensslUnavailable();

describe('azure provider: NAPTR and DNAME skipped, the rest syncs', { skip: armSkip ?? false }, () => {
  let cert: SelfSignedCert;
  let emu: ArmDnsEmulator;
  const SUB = '00000000-0000-0000-0000-000000000001';
  const TOKEN = 'arm-static-token';
  before(async () => {
    cert = await makeSelfSignedCert();
    emu = await ArmDnsEmulator.start({ subscriptionId: SUB, cert, pageSize: 2, token: TOKEN });
    emu.addZone('public', 'dns-rg', 'example.com');
  });
  after(async () => {
    await emu?.stop();
    await cert?.cleanup();
  });

  test('one warning per skipped endpoint; the A record and its ownership record are written', async () => {
    const { logger, warnings } = capturingLogger();
    const credential: TokenCredential = { getToken: () => Promise.resolve({ token: TOKEN, expiresOnTimestamp: Date.now() + 3_600_000 }) };
    const http = { tlsOptions: { ca: cert.cert }, retryOptions: { maxRetries: 3, retryDelayInMs: 1, maxRetryDelayInMs: 5 } };
    const provider = new AzureProvider({
      api: new SdkAzureDnsApi({ kind: 'public', credential, subscriptionId: SUB, resourceGroup: 'dns-rg', endpoint: emu.url, http }),
      logger,
    });
    await provider.records();
    assert.deepEqual(await syncSkipping(provider, 'example.com'), ['www.example.com A']);
    const records = await provider.records();
    assert.ok(find(records, 'a-www.example.com', 'TXT') !== undefined);
    assert.equal(find(records, 'naptr-_sip._udp.example.com', 'TXT'), undefined, 'no ownership record for a record that cannot exist');
    const byRecord = new Map(warnings().map((w) => [w.record, w.msg]));
    assert.match(byRecord.get('_sip._udp.example.com NAPTR') ?? '', /Azure DNS has no NAPTR record type/);
    assert.match(byRecord.get('old.example.com DNAME') ?? '', /Azure DNS has no DNAME record type/);
  });
});

const etcdSkip = !(await etcdAvailable()) && 'etcd is not installed (apt-get install etcd-server)';

describe('coredns provider: NAPTR and DNAME skipped, the rest syncs', { skip: etcdSkip }, () => {
  let etcd: EtcdServer;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  test('one warning per skipped endpoint; the A record and its ownership record are written', async () => {
    const { logger, warnings } = capturingLogger();
    const provider = new CoreDnsProvider({
      store: new EtcdClient({ urls: [etcd.url], timeoutMs: 5000 }),
      logger,
      domainFilter: new DomainFilter({ include: ['example.test'] }),
    });
    assert.deepEqual(await syncSkipping(provider, 'example.test'), ['www.example.test A']);
    const records = await provider.records();
    assert.ok(find(records, 'www.example.test', 'A') !== undefined);
    assert.ok(find(records, 'a-www.example.test', 'TXT') !== undefined);
    const byRecord = new Map(warnings().map((w) => [w.record, w.msg]));
    assert.match(byRecord.get('_sip._udp.example.test NAPTR') ?? '', /CoreDNS's etcd format has no NAPTR record type/);
    assert.match(byRecord.get('old.example.test DNAME') ?? '', /has no DNAME record type/);
  });
});
