/**
 * The aws provider driving the official SDK against the Route53/STS emulator: full syncs through
 * the Controller and the TXT registry, throttling in the middle of a sync, batching limits,
 * bisection of refused batches, assume-role with ExternalId, alias records and pagination.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Controller } from '../../src/controller/controller.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../src/endpoint/endpoint.ts';
import { ProviderError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import type { Route53Provider } from '../../src/provider/aws/route53.ts';
import { emptyChanges } from '../../src/plan/changes.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { FakeSource } from '../support/fakes.ts';
import { awsProvider, isolateAwsSdk } from '../support/aws/provider.ts';
import { runAwsOnce } from '../support/aws/run-once.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import type { EmulatedZone } from '../support/aws/route53-emulator.ts';
import { recordSetToXml } from '../support/aws/route53-model.ts';
import { testController } from '../support/controller.ts';

isolateAwsSdk();
const ROLE = 'arn:aws:iam::111122223333:role/external-dns';
const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint =>
  newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], labels: { resource: `service/default/${init.dnsName.split('.')[0] ?? ''}` }, ...init });

function controllerFor(provider: Route53Provider, source: FakeSource): Controller {
  const registry = new TXTRegistry(provider, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
  return testController(source, registry);
}

describe('aws provider against the Route53 emulator', () => {
  let e: AwsEmulators;
  let zone: EmulatedZone;
  let other: EmulatedZone;

  before(async () => {
    e = await startAwsEmulators();
  });
  after(async () => {
    await e.stop();
  });
  beforeEach(() => {
    e.route53.zones.clear();
    e.route53.limits = { changes: 1000, values: 1000, characters: 32_000 };
    e.route53.maxRecordPage = 300;
    e.aws.authorize = () => true;
    zone = e.route53.createZone('example.org');
    other = e.route53.createZone('dev.example.org');
    e.route53.receivedNames.length = 0;
    e.aws.resetCounts();
  });

  test('full sync: create with ownership TXT, steady state without re-listing, update, delete, unowned record left alone', async () => {
    e.route53.put(zone, { name: 'taken.example.org', type: 'A', ttl: 60, values: ['203.0.113.9'] });
    const provider = await awsProvider(e);
    const source = new FakeSource([
      ep({ dnsName: 'www.example.org', targets: ['192.0.2.10', '192.0.2.11'], recordTTL: 120 }),
      ep({ dnsName: 'api.dev.example.org', recordType: 'CNAME', targets: ['www.example.org'] }),
      ep({ dnsName: 'taken.example.org', targets: ['192.0.2.99'] }),
    ]);
    const controller = controllerFor(provider, source);
    const first = await controller.runOnce();
    assert.equal(first.applied, true);
    assert.deepEqual(e.route53.find(zone, 'www.example.org', 'A')?.values, ['192.0.2.10', '192.0.2.11']);
    assert.equal(e.route53.find(zone, 'www.example.org', 'A')?.ttl, 120);
    assert.deepEqual(e.route53.find(zone, 'a-www.example.org', 'TXT')?.values, [
      '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=service/default/www"',
    ]);
    // Longest suffix: the dev zone gets its record, not the parent zone.
    assert.deepEqual(e.route53.find(other, 'api.dev.example.org', 'CNAME')?.values, ['www.example.org']);
    assert.ok(e.route53.find(other, 'cname-api.dev.example.org', 'TXT') !== undefined);
    assert.equal(e.route53.find(zone, 'api.dev.example.org', 'CNAME'), undefined);
    assert.deepEqual(e.route53.find(zone, 'taken.example.org', 'A')?.values, ['203.0.113.9'], 'unowned record untouched');
    assert.equal(e.route53.find(zone, 'a-taken.example.org', 'TXT'), undefined);
    // One write per zone: a record and its TXT travel together.
    assert.equal(e.aws.count('route53', 'ChangeResourceRecordSets'), 2);

    e.aws.resetCounts();
    assert.equal((await controller.runOnce()).applied, false, 'steady state changes nothing');
    assert.equal(e.aws.count('route53', 'ListResourceRecordSets'), 0, 'steady state needs no re-list');
    assert.equal(e.aws.count('route53', 'ChangeResourceRecordSets'), 0);

    source.desired = [
      ep({ dnsName: 'www.example.org', targets: ['192.0.2.20'], recordTTL: 120 }),
      ep({ dnsName: 'taken.example.org', targets: ['192.0.2.99'] }),
    ];
    e.aws.resetCounts();
    const second = await controller.runOnce();
    assert.equal(second.changes.updateNew.length, 1);
    assert.equal(second.changes.delete.length, 1);
    assert.deepEqual(e.route53.find(zone, 'www.example.org', 'A')?.values, ['192.0.2.20']);
    assert.equal(e.route53.find(other, 'api.dev.example.org', 'CNAME'), undefined);
    assert.equal(e.route53.find(other, 'cname-api.dev.example.org', 'TXT'), undefined);
    assert.equal(e.aws.count('route53', 'ListResourceRecordSets'), 0, 'a one-object change needs no re-list');
    assert.equal((await controller.runOnce()).applied, false);
  });

  test('throttling mid-sync is retried with backoff; past --aws-api-retries the sync fails transiently and the next one recovers', async () => {
    const provider = await awsProvider(e, { 'aws-api-retries': '2' });
    const source = new FakeSource([ep({ dnsName: 'a.example.org' }), ep({ dnsName: 'b.dev.example.org' })]);
    const controller = controllerFor(provider, source);
    e.aws.fail({ code: 'Throttling', operations: ['ChangeResourceRecordSets'], count: 1 });
    e.aws.fail({
      code: 'PriorRequestNotComplete',
      message: 'The request was rejected because Route 53 was still processing a prior request.',
      operations: ['ChangeResourceRecordSets'],
      count: 1,
    });
    await controller.runOnce();
    assert.ok(e.route53.find(zone, 'a.example.org', 'A') !== undefined);
    assert.ok(e.route53.find(other, 'b.dev.example.org', 'A') !== undefined);

    source.desired.push(ep({ dnsName: 'c.example.org' }));
    e.aws.fail({ code: 'Throttling', operations: ['ChangeResourceRecordSets'], count: 3 });
    await assert.rejects(controller.runOnce(), (err: unknown) => err instanceof ProviderError && err.transient && /Throttling/.test(err.message));
    assert.equal(e.route53.find(zone, 'c.example.org', 'A'), undefined);
    await controller.runOnce();
    assert.ok(e.route53.find(zone, 'c.example.org', 'A') !== undefined);
    assert.ok(e.route53.find(zone, 'a-c.example.org', 'TXT') !== undefined);
  });

  test('writes are packed within the change, value and character limits; a record never leaves its TXT', async () => {
    const provider = await awsProvider(e, { 'aws-batch-change-size': '10', 'aws-batch-change-size-bytes': '2000' });
    const desired = Array.from({ length: 25 }, (_, i) => ep({ dnsName: `n${i}.example.org` }));
    await controllerFor(provider, new FakeSource(desired)).runOnce();
    // 50 changes, 10 per request, pairs kept together: 5 requests.
    assert.equal(e.aws.count('route53', 'ChangeResourceRecordSets'), 5);
    for (let i = 0; i < 25; i++) assert.ok(e.route53.find(zone, `a-n${i}.example.org`, 'TXT') !== undefined);

    e.aws.resetCounts();
    const long = await awsProvider(e, { 'aws-batch-change-size-bytes': '2000' });
    const txt = (i: number): Endpoint => newEndpoint({ dnsName: `t${i}.example.org`, recordType: 'TXT', targets: ['v'.repeat(600)] });
    await long.applyChanges({ ...emptyChanges(), create: [0, 1, 2, 3, 4, 5].map(txt) });
    // 602 characters each (600 split at 255 bytes gives three quoted strings: 606), three per request.
    assert.equal(e.aws.count('route53', 'ChangeResourceRecordSets'), 2);
    assert.deepEqual(e.route53.find(zone, 't0.example.org', 'TXT')?.values, [`"${'v'.repeat(255)}" "${'v'.repeat(255)}" "${'v'.repeat(90)}"`]);
    const read = (await long.records()).find((r) => r.dnsName === 't0.example.org');
    assert.deepEqual(read?.targets, ['v'.repeat(600)]);
  });

  test('the emulator enforces the limits: UPSERT counts twice', async () => {
    e.route53.limits = { changes: 1000, values: 10, characters: 32_000 };
    const provider = await awsProvider(e, { 'aws-batch-change-size-values': '10' });
    const eps = Array.from({ length: 6 }, (_, i) => ep({ dnsName: `u${i}.example.org` }));
    await provider.applyChanges({ ...emptyChanges(), create: eps });
    e.aws.resetCounts();
    const moved = eps.map((x) => ({ ...x, targets: ['192.0.2.77'] }));
    await provider.applyChanges({ ...emptyChanges(), updateOld: eps, updateNew: moved });
    // Six UPSERTs count twelve against ten values: two requests.
    assert.equal(e.aws.count('route53', 'ChangeResourceRecordSets'), 2);
    assert.deepEqual(e.route53.find(zone, 'u5.example.org', 'A')?.values, ['192.0.2.77']);
  });

  test('a refused batch is bisected: every valid change lands, the bad one is reported with its reason', async () => {
    e.route53.put(zone, { name: 'exists.example.org', type: 'A', ttl: 300, values: ['203.0.113.1'] });
    const provider = await awsProvider(e);
    const creates = Array.from({ length: 9 }, (_, i) => ep({ dnsName: `ok${i}.example.org` }));
    creates.splice(4, 0, ep({ dnsName: 'exists.example.org' }));
    await assert.rejects(provider.applyChanges({ ...emptyChanges(), create: creates }), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.transient, false);
      assert.equal(err.code, 'PROVIDER_INVALID_CHANGE');
      assert.match(err.message, /exists\.example\.org A in zone example\.org: .*already exists/);
      assert.doesNotMatch(err.message, /ok\d/);
      return true;
    });
    for (let i = 0; i < 9; i++) assert.ok(e.route53.find(zone, `ok${i}.example.org`, 'A') !== undefined, `ok${i} landed`);
    assert.deepEqual(e.route53.find(zone, 'exists.example.org', 'A')?.values, ['203.0.113.1']);
    // 1 + 2 + 2 + 2 + 2 requests: halves down to the single bad change (10 → 5 → 3 → 2 → 1).
    assert.ok(e.aws.count('route53', 'ChangeResourceRecordSets') <= 9);
  });

  test('assume-role: every Route53 call is made by the role session; the ExternalId is checked', async () => {
    e.sts.addRole({ arn: ROLE, externalId: 'ext-123', trusted: [e.aws.rootIdentity.arn] });
    // Only the role may touch Route53, so a call made with the base user would fail.
    e.aws.authorize = (principal, action) => !action.startsWith('route53:') || principal.includes(':assumed-role/external-dns/');
    const provider = await awsProvider(e, { 'aws-assume-role': ROLE, 'aws-assume-role-external-id': 'ext-123' });
    await provider.applyChanges({ ...emptyChanges(), create: [ep({ dnsName: 'role.example.org' })] });
    assert.ok(e.route53.find(zone, 'role.example.org', 'A') !== undefined);
    assert.equal(e.sts.assumeRoleCalls.at(-1)?.externalId, 'ext-123');
    assert.ok(e.aws.log.filter((l) => l.service === 'route53').every((l) => l.principal === 'arn:aws:sts::111122223333:assumed-role/external-dns/hostwarden'));

    await assert.rejects(awsProvider(e, { 'aws-assume-role': ROLE, 'aws-assume-role-external-id': 'wrong' }), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.code, 'PROVIDER_ACCESS_DENIED');
      assert.equal(err.transient, false);
      assert.ok(err.message.includes(`sts:AssumeRole for role ${ROLE}`), err.message);
      return true;
    });
    assert.equal(e.sts.assumeRoleCalls.at(-1)?.ok, false);

    // A role without write permission: the denied action and the role are named.
    e.aws.authorize = (_principal, action) => action !== 'route53:ChangeResourceRecordSets';
    await assert.rejects(provider.applyChanges({ ...emptyChanges(), create: [ep({ dnsName: 'denied.example.org' })] }), (err: unknown) => {
      assert.ok(err instanceof ProviderError && !err.transient);
      assert.ok(err.message.includes(`route53:ChangeResourceRecordSets for role ${ROLE}`), err.message);
      return true;
    });
  });

  test('alias records: a CNAME to a load balancer becomes an A and an AAAA alias with the canonical zone, owned by a-/aaaa- TXT, stable across syncs; --aws-prefer-cname keeps a CNAME', async () => {
    const provider = await awsProvider(e);
    const elb = 'k8s-web-1234567890.us-east-1.elb.amazonaws.com';
    const source = new FakeSource([
      ep({ dnsName: 'shop.example.org', recordType: 'CNAME', targets: [elb] }),
      ep({
        dnsName: 'inner.example.org',
        recordType: 'CNAME',
        targets: ['www.dev.example.org'],
        providerSpecific: [
          { name: 'alias', value: 'true' },
          { name: 'aws/evaluate-target-health', value: 'false' },
        ],
      }),
    ]);
    const controller = controllerFor(provider, source);
    await controller.runOnce();
    for (const type of ['A', 'AAAA']) {
      assert.deepEqual(e.route53.find(zone, 'shop.example.org', type)?.alias, {
        hostedZoneId: 'Z35SXDOTRQ7X7K',
        dnsName: `${elb}.`,
        evaluateTargetHealth: true,
      });
      assert.deepEqual(e.route53.find(zone, 'inner.example.org', type)?.alias, {
        hostedZoneId: other.id,
        dnsName: 'www.dev.example.org.',
        evaluateTargetHealth: false,
      });
      assert.ok(e.route53.find(zone, `${type.toLowerCase()}-shop.example.org`, 'TXT') !== undefined);
    }
    assert.equal(e.route53.find(zone, 'cname-shop.example.org', 'TXT'), undefined);
    provider.invalidate();
    assert.equal((await controller.runOnce()).applied, false, 'alias records read back as they were desired');

    const plain = await awsProvider(e, { 'aws-prefer-cname': true });
    await plain.applyChanges({
      ...emptyChanges(),
      create: await plain.adjustEndpoints([ep({ dnsName: 'cn.example.org', recordType: 'CNAME', targets: [elb] })]),
    });
    assert.deepEqual(e.route53.find(zone, 'cn.example.org', 'CNAME')?.values, [elb]);
  });

  test('routing policies with set identifiers, each with its ownership TXT', async () => {
    const provider = await awsProvider(e);
    const weighted = (id: string, weight: string, target: string): Endpoint =>
      ep({ dnsName: 'w.example.org', targets: [target], setIdentifier: id, providerSpecific: [{ name: 'aws/weight', value: weight }] });
    const source = new FakeSource([
      weighted('blue', '10', '192.0.2.1'),
      weighted('green', '90', '192.0.2.2'),
      ep({
        dnsName: 'geo.example.org',
        setIdentifier: 'eu',
        providerSpecific: [
          { name: 'aws/geolocation-continent-code', value: 'EU' },
          { name: 'aws/health-check-id', value: 'hc-1' },
        ],
      }),
      ep({ dnsName: 'fo.example.org', setIdentifier: 'primary', providerSpecific: [{ name: 'aws/failover', value: 'primary' }] }),
    ]);
    const controller = controllerFor(provider, source);
    await controller.runOnce();
    assert.equal(e.route53.find(zone, 'w.example.org', 'A', 'green')?.weight, 90);
    assert.equal(e.route53.find(zone, 'a-w.example.org', 'TXT', 'blue')?.weight, 10);
    assert.deepEqual(e.route53.find(zone, 'geo.example.org', 'A', 'eu')?.geo, { continent: 'EU' });
    assert.equal(e.route53.find(zone, 'fo.example.org', 'A', 'primary')?.failover, 'PRIMARY');
    provider.invalidate();
    assert.equal((await controller.runOnce()).applied, false, 'routing properties read back equal');
    source.desired[0] = weighted('blue', '50', '192.0.2.1');
    await controller.runOnce();
    assert.equal(e.route53.find(zone, 'w.example.org', 'A', 'blue')?.weight, 50);
  });

  test('pagination of zones and record sets; \\052 wildcards; zone filters', async () => {
    for (let i = 0; i < 120; i++) e.route53.createZone(`z${i}.test`, { private: i % 2 === 1, tags: i === 7 ? { team: 'dns' } : {} });
    e.route53.maxRecordPage = 100;
    for (let i = 0; i < 450; i++) e.route53.put(zone, { name: `r${i}.example.org`, type: 'A', ttl: 300, values: [`10.0.${i >> 8}.${i & 255}`] });
    e.route53.put(zone, { name: '*.example.org', type: 'A', ttl: 300, values: ['10.9.9.9'] });
    e.aws.resetCounts();
    const provider = await awsProvider(e, { 'zone-name-filter': 'example.org' });
    const records = await provider.records();
    assert.equal(e.aws.count('route53', 'ListHostedZones'), 4, 'two pages of zones, twice (start-up and first sync)');
    // example.org: 450 + wildcard + SOA + NS = 453 sets, 100 a page; dev.example.org: one page.
    assert.equal(e.aws.count('route53', 'ListResourceRecordSets'), 6);
    assert.equal(records.filter((r) => /^r\d+\.example\.org$/.test(r.dnsName)).length, 450);
    assert.deepEqual(records.find((r) => r.dnsName === '*.example.org')?.targets, ['10.9.9.9']);
    assert.ok(provider.domainFilter().match('x.dev.example.org'));
    assert.ok(!provider.domainFilter().match('z1.test'));

    const tagged = await awsProvider(e, { 'aws-zone-tags': 'team=dns', 'aws-zone-type': 'private' });
    assert.ok(tagged.domainFilter().match('z7.test'));
    assert.ok(!tagged.domainFilter().match('example.org'));
    const byId = await awsProvider(e, { 'zone-id-filter': other.id }, { domainFilters: ['dev.example.org'] });
    assert.ok(byId.domainFilter().match('a.dev.example.org') && !byId.domainFilter().match('a.example.org'));
    const parent = await awsProvider(e, {}, { domainFilters: ['app.example.org'] });
    assert.ok(parent.domainFilter().match('example.org'), 'the parent zone of a filtered subdomain is kept');
  });

  test('a wildcard and its a-*.apps ownership TXT: sent and listed as \\052 in both positions, read back as *, updated, deleted', async () => {
    const provider = await awsProvider(e);
    const source = new FakeSource([ep({ dnsName: '*.apps.example.org', targets: ['192.0.2.20'] })]);
    const controller = controllerFor(provider, source);
    assert.equal((await controller.runOnce()).applied, true);
    assert.deepEqual([...e.route53.receivedNames].sort(), ['\\052.apps.example.org.', 'a-\\052.apps.example.org.']);
    assert.deepEqual(e.route53.find(zone, '*.apps.example.org', 'A')?.values, ['192.0.2.20']);
    const txt = e.route53.find(zone, 'a-*.apps.example.org', 'TXT');
    assert.deepEqual(txt?.values, ['"heritage=external-dns,external-dns/owner=hw,external-dns/resource=service/default/*"']);
    assert.ok(txt !== undefined && recordSetToXml(txt).includes('<Name>a-\\052.apps.example.org.</Name>'), 'listed escaped');

    provider.invalidate();
    assert.equal((await controller.runOnce()).applied, false, 'read back as * and owned: nothing to change');
    const records = await provider.records();
    assert.ok(records.some((r) => r.dnsName === 'a-*.apps.example.org' && r.recordType === 'TXT'));

    source.desired[0] = ep({ dnsName: '*.apps.example.org', targets: ['192.0.2.21'] });
    assert.equal((await controller.runOnce()).applied, true);
    assert.deepEqual(e.route53.find(zone, '*.apps.example.org', 'A')?.values, ['192.0.2.21']);
    source.desired = [];
    await controller.runOnce();
    assert.equal(e.route53.find(zone, '*.apps.example.org', 'A'), undefined);
    assert.equal(e.route53.find(zone, 'a-*.apps.example.org', 'TXT'), undefined);
  });

  test('a zone external-dns wrote with a wildcard (\\052 names) is read, owned and updated', async () => {
    const value = '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=service/default/*"';
    e.route53.put(zone, { name: '\\052.apps.example.org', type: 'A', ttl: 300, values: ['192.0.2.30'] });
    e.route53.put(zone, { name: 'a-\\052.apps.example.org', type: 'TXT', ttl: 300, values: [value] });
    const provider = await awsProvider(e);
    const source = new FakeSource([ep({ dnsName: '*.apps.example.org', targets: ['192.0.2.31'], recordTTL: 300 })]);
    const controller = controllerFor(provider, source);
    assert.equal((await controller.runOnce()).applied, true);
    assert.deepEqual(e.route53.find(zone, '*.apps.example.org', 'A')?.values, ['192.0.2.31']);
    assert.deepEqual(e.route53.find(zone, 'a-*.apps.example.org', 'TXT')?.values, [value], 'the same TXT, still what external-dns reads');
    assert.equal(e.route53.recordsOf(zone.id).length, 2);
  });

  test('a record created behind our back: the refused CREATE is reported, the cache dropped, the next sync leaves it alone', async () => {
    const provider = await awsProvider(e);
    const source = new FakeSource([ep({ dnsName: 'one.example.org' })]);
    const controller = controllerFor(provider, source);
    await controller.runOnce();
    // Someone else writes a record while ours are cached.
    e.route53.put(zone, { name: 'two.example.org', type: 'A', ttl: 60, values: ['203.0.113.2'] });
    source.desired.push(ep({ dnsName: 'two.example.org' }), ep({ dnsName: 'three.example.org' }));
    await assert.rejects(
      controller.runOnce(),
      (err: unknown) =>
        err instanceof ProviderError &&
        !err.transient &&
        /two\.example\.org A, a-two\.example\.org TXT in zone example\.org: .*already exists/.test(err.message),
    );
    assert.ok(e.route53.find(zone, 'three.example.org', 'A') !== undefined, 'the valid change landed');
    assert.equal(e.route53.find(zone, 'a-two.example.org', 'TXT'), undefined, 'no ownership claim without the record');
    e.aws.resetCounts();
    assert.equal((await controller.runOnce()).applied, false, 'the unowned record is now seen and left alone');
    assert.equal(e.aws.count('route53', 'ListResourceRecordSets'), 1, 'only the refused zone was re-listed');
    assert.deepEqual(e.route53.find(zone, 'two.example.org', 'A')?.values, ['203.0.113.2']);
  });

  test('the CLI: run --once --provider aws with flags and EXTERNAL_DNS_* environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hw-aws-'));
    try {
      await writeFile(
        join(dir, 'web.yaml'),
        `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
  annotations:
    external-dns.alpha.kubernetes.io/hostname: web.example.org
spec:
  type: LoadBalancer
status:
  loadBalancer:
    ingress:
      - ip: 192.0.2.80
`,
      );
      e.sts.addRole({ arn: ROLE, externalId: 'cli' });
      const result = await runAwsOnce(e, {
        manifestsDir: dir,
        owner: 'cli',
        home: dir,
        extra: ['--aws-assume-role', ROLE, '--aws-assume-role-external-id', 'cli'],
      });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(e.route53.find(zone, 'web.example.org', 'A')?.values, ['192.0.2.80']);
      assert.deepEqual(e.route53.find(zone, 'a-web.example.org', 'TXT')?.values, [
        '"heritage=external-dns,external-dns/owner=cli,external-dns/resource=service/default/web"',
      ]);
      const bad = await runAwsOnce(e, { manifestsDir: dir, owner: 'cli', home: dir, extra: ['--aws-assume-role', 'not-an-arn'] });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /--aws-assume-role/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
