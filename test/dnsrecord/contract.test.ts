/**
 * The DNSRecord contract as Gardener's extension library runs it, against the test API server with
 * Gardener's DNSRecord and Cluster CRDs and a backend that records provider calls: which events
 * make provider calls (the same as provider-aws's controller), deletion that never leaks a record,
 * extension classes, the Processing → Succeeded/Error status with Gardener's codes and Created
 * condition, failed shoots skipped, force deletion.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import type { DNSRecordControllerOptions } from '../../src/dnsrecord/controller.ts';
import { CredentialLimiters } from '../../src/dnsrecord/limiters.ts';
import { ProviderError } from '../../src/errors.ts';
import { CLUSTERS, DNSRECORDS, FINALIZER, OPERATION_ANNOTATION } from '../../src/dnsrecord/types.ts';
import type { DNSRecord } from '../../src/dnsrecord/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { collectionPath, objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { installCrd, loadCrd } from '../support/crds/load.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { extensionClassesOf } from '../../src/dnsrecord/flags.ts';
import { parseContainerArgs } from '../deploy/checks.ts';
import { backendTypes } from '../../src/dnsrecord/backend-types.ts';
import { SECRETS } from '../../src/dnsrecord/types.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import { FakeBackend } from './fake-backend.ts';
import { waitFor } from './harness.ts';

const NS = 'shoot--dev--contract';
const SUCCEEDED = {
  lastOperation: {
    type: 'Create',
    state: 'Succeeded',
    description: 'Successfully reconciled DNSRecord',
    lastUpdateTime: '2026-01-01T00:00:00Z',
    progress: 100,
  },
  conditions: [
    {
      type: 'Created',
      status: 'True',
      reason: 'Success',
      message: 'Record was created successfully in infrastructure at least once',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      lastUpdateTime: '2026-01-01T00:00:00Z',
    },
  ],
  observedGeneration: 1,
};

describe('dnsrecord-controller: the contract of Gardener’s extension library', () => {
  let api: TestApiServer;
  let client: KubeClient;
  let controllers: DNSRecordController[] = [];

  const path = (name: string, ns = NS): string => objectPath(DNSRECORDS, ns, name);
  const get = (name: string, ns = NS): Promise<DNSRecord | undefined> => client.request<DNSRecord>('GET', path(name, ns)).catch(() => undefined);
  const mergePatch = (p: string, body: unknown): Promise<DNSRecord> =>
    client.request<DNSRecord>('PATCH', p, { body, contentType: 'application/merge-patch+json' });

  /** A record as stored: optional finalizer, status (through /status), annotations and class. */
  async function seed(
    name: string,
    opts: { ns?: string; status?: unknown; finalizer?: boolean; annotations?: Record<string, string>; cls?: string; type?: string; domain?: string } = {},
  ): Promise<DNSRecord> {
    const ns = opts.ns ?? NS;
    await client.request('POST', collectionPath(DNSRECORDS, ns), {
      body: {
        apiVersion: DNSRECORDS.apiVersion,
        kind: 'DNSRecord',
        metadata: {
          name,
          namespace: ns,
          ...(opts.finalizer === true ? { finalizers: [FINALIZER] } : {}),
          ...(opts.annotations === undefined ? {} : { annotations: opts.annotations }),
        },
        spec: {
          type: opts.type ?? 'fake',
          secretRef: { name: opts.type === undefined ? 'unused' : 'aws' },
          name: `${name}.${opts.domain ?? 'example.test'}`,
          recordType: 'A',
          values: ['192.0.2.1'],
          ...(opts.cls === undefined ? {} : { class: opts.cls }),
        },
      },
    });
    if (opts.status !== undefined) await mergePatch(`${path(name, ns)}/status`, { status: opts.status });
    return (await get(name, ns)) as DNSRecord;
  }

  async function start(backend: FakeBackend, opts: Partial<DNSRecordControllerOptions> = {}): Promise<DNSRecordController> {
    const c = new DNSRecordController({
      client,
      logger: silentLogger(),
      limiters: new CredentialLimiters({ ratePerSecond: 0 }),
      types: ['fake'],
      extensionClasses: [],
      backends: { fake: backend.type() },
      backoff: { initialMs: 50, maxMs: 200 },
      ...opts,
    });
    controllers.push(c);
    c.start();
    await waitFor('DNSRecords listed', async () => (c.reflector.hasSynced() ? true : undefined));
    await c.queue.idle();
    return c;
  }

  async function stopAll(): Promise<void> {
    for (const c of controllers) await c.stop();
    controllers = [];
  }

  /** Lets the watch deliver what was just written, then waits for the queue to drain. */
  async function quiet(c: DNSRecordController): Promise<void> {
    await new Promise((r) => setTimeout(r, 300));
    await c.queue.idle();
  }

  before(async () => {
    api = await startTestApiServer({ namespaces: [NS, 'garden'], bookmarkIntervalMs: 200 });
    client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    await installCrd(api, loadCrd('gardener', 'dnsrecords.extensions.gardener.cloud'));
    await installCrd(api, loadCrd('gardener', 'clusters.extensions.gardener.cloud'));
  });

  after(async () => {
    await stopAll();
    client?.close();
    await api?.stop();
  });

  describe('reconcile triggers (the default predicates of controller.go, --ignore-operation-annotation=false)', () => {
    const backend = new FakeBackend();
    let c: DNSRecordController;

    before(async () => {
      for (let i = 0; i < 5; i++) await seed(`ok-${i}`, { finalizer: true, status: SUCCEEDED });
      await seed('was-error', {
        finalizer: true,
        status: {
          lastOperation: {
            type: 'Reconcile',
            state: 'Error',
            description: 'Error reconciling DNSRecord: x',
            lastUpdateTime: '2026-01-01T00:00:00Z',
            progress: 50,
          },
        },
      });
      c = await start(backend);
    });
    after(stopAll);

    test('start with 5 records already Succeeded: no provider call; the one whose last operation is Error is retried', () => {
      assert.deepEqual(
        backend.writes().map((w) => w.name),
        ['was-error.example.test'],
      );
    });

    test('a status-only update: no call', async () => {
      backend.calls.length = 0;
      await mergePatch(`${path('ok-0')}/status`, { status: { lastOperation: { description: 'changed by someone' } } });
      await quiet(c);
      assert.deepEqual(backend.writes(), []);
    });

    test('a generation bump without the operation annotation: no call (as provider-aws with its default flags)', async () => {
      backend.calls.length = 0;
      const r = await mergePatch(path('ok-1'), { spec: { values: ['192.0.2.2'] } });
      assert.equal(r.metadata.generation, 2);
      await quiet(c);
      assert.deepEqual(backend.writes(), []);
    });

    test('the reconcile annotation (as gardenlet sets it with each spec change): one upsert, the annotation removed, Processing first', async () => {
      backend.calls.length = 0;
      const seen: (string | undefined)[] = [];
      backend.onCall = async () => {
        const now = await get('ok-1');
        seen.push(`${now?.status?.lastOperation?.state}/${now?.status?.lastOperation?.description}/${now?.status?.lastOperation?.progress}`);
      };
      await mergePatch(path('ok-1'), { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } } });
      const done = await waitFor('reconciled', async () => {
        const r = await get('ok-1');
        return r?.status?.lastOperation?.type === 'Reconcile' && r.status.lastOperation.state === 'Succeeded' ? r : undefined;
      });
      await quiet(c);
      backend.onCall = undefined;
      assert.deepEqual(backend.writes(), [{ op: 'upsert', zone: 'Z1', name: 'ok-1.example.test', type: 'A', values: ['192.0.2.2'] }]);
      assert.deepEqual(seen, ['Processing/Reconciling the DNSRecord/1']);
      assert.equal(done.metadata.annotations?.[OPERATION_ANNOTATION], undefined);
      assert.equal(done.status?.lastOperation?.description, 'Successfully reconciled DNSRecord');
      assert.equal(done.status?.lastOperation?.progress, 100);
      assert.equal(done.status?.observedGeneration, 2);
      assert.equal(done.status?.zone, 'Z1');
    });

    test('an error: Error with Gardener’s description and codes, Created False (Error), retried with backoff until it succeeds', async () => {
      backend.calls.length = 0;
      backend.failWith = new ProviderError('fake', 'AccessDenied: not allowed to change this zone');
      await seed('fails');
      const rec = await waitFor('error reported', async () => {
        const r = await get('fails');
        return r?.status?.lastOperation?.state === 'Error' ? r : undefined;
      });
      assert.equal(rec.status?.lastOperation?.type, 'Create');
      assert.equal(rec.status?.lastOperation?.progress, 50);
      assert.equal(rec.status?.lastError?.description, 'Error reconciling DNSRecord: AccessDenied: not allowed to change this zone');
      assert.deepEqual(rec.status?.lastError?.codes, ['ERR_INFRA_UNAUTHORIZED']);
      const created = rec.status?.conditions?.find((x) => x.type === 'Created');
      assert.deepEqual([created?.status, created?.reason, created?.message], ['False', 'Error', 'Error on initial record creation in infrastructure']);
      await waitFor('retried', async () => (backend.writes().length >= 2 ? true : undefined));
      backend.failWith = undefined;
      const ok = await waitFor('succeeded after retries', async () => {
        const r = await get('fails');
        return r?.status?.lastOperation?.state === 'Succeeded' ? r : undefined;
      });
      assert.equal(ok.status?.lastOperation?.type, 'Create', 'an unfinished Create stays Create');
      const after = ok.status?.conditions?.find((x) => x.type === 'Created');
      assert.deepEqual([after?.status, after?.reason], ['True', 'Success']);
      assert.equal(ok.status?.lastError ?? undefined, undefined);
    });

    test('a Succeeded record with an unrelated metadata update: no call', async () => {
      await quiet(c);
      backend.calls.length = 0;
      await mergePatch(path('ok-2'), { metadata: { labels: { team: 'a' } } });
      await quiet(c);
      assert.deepEqual(backend.writes(), []);
    });
  });

  describe('the same sequence with the aws-route53 type: Route53 (the emulator) sees the calls provider-aws would make', () => {
    let emu: AwsEmulators;
    let c: DNSRecordController;
    let zoneId = '';
    const route53 = (): string[] => emu.aws.log.filter((l) => l.service === 'route53').map((l) => l.operation);

    before(async () => {
      emu = await startAwsEmulators();
      zoneId = emu.route53.createZone('example.com').id;
      const root = emu.aws.rootIdentity;
      const data = { accessKeyID: root.accessKeyId, secretAccessKey: root.secretAccessKey };
      await client.request('POST', collectionPath(SECRETS, NS), {
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'aws', namespace: NS },
          data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
        },
      });
      for (let i = 0; i < 3; i++)
        await seed(`r53-ok-${i}`, { type: 'aws-route53', domain: 'example.com', finalizer: true, status: { ...SUCCEEDED, zone: zoneId } });
      await seed('r53-error', {
        type: 'aws-route53',
        domain: 'example.com',
        finalizer: true,
        status: {
          lastOperation: {
            type: 'Create',
            state: 'Error',
            description: 'Error reconciling DNSRecord: x',
            lastUpdateTime: '2026-01-01T00:00:00Z',
            progress: 50,
          },
        },
      });
      c = await start(new FakeBackend(), {
        types: ['aws-route53'],
        backends: backendTypes(['aws-route53'], { aws: { region: 'us-east-1', endpointUrl: emu.url, retries: 0 }, rfc2136TimeoutMs: 2000 }),
      });
      await waitFor('the Error record retried', async () => ((await get('r53-error'))?.status?.lastOperation?.state === 'Succeeded' ? true : undefined));
      await quiet(c);
    });
    after(async () => {
      await stopAll();
      await emu?.stop();
    });

    test('start: only the record whose last operation is Error is written (one zone listing, one change)', () => {
      assert.deepEqual(route53().sort(), ['ChangeResourceRecordSets', 'ListHostedZones']);
      assert.deepEqual(
        emu.route53.batches.map((b) => b.changes.map((x) => `${x.action} ${x.name}`)),
        [['UPSERT r53-error.example.com.']],
      );
    });

    test('status-only update and generation bump without the annotation: no Route53 call; the annotation: one UPSERT', async () => {
      emu.aws.resetCounts();
      await mergePatch(`${path('r53-ok-0')}/status`, { status: { lastOperation: { description: 'changed' } } });
      await mergePatch(path('r53-ok-1'), { spec: { values: ['192.0.2.9'] } });
      await quiet(c);
      assert.deepEqual(route53(), []);
      await mergePatch(path('r53-ok-1'), { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } } });
      await waitFor('reconciled', async () => ((await get('r53-ok-1'))?.status?.lastOperation?.type === 'Reconcile' ? true : undefined));
      await quiet(c);
      assert.deepEqual(route53(), ['ChangeResourceRecordSets'], 'status.zone is known: no zone listing');
      assert.equal((await get('r53-ok-1'))?.metadata.annotations?.[OPERATION_ANNOTATION], undefined);
    });
  });

  describe('with --ignore-operation-annotation (GenerationChangedPredicate)', () => {
    const backend = new FakeBackend();
    let c: DNSRecordController;
    before(async () => {
      c = await start(backend, { ignoreOperationAnnotation: true });
    });
    after(stopAll);

    test('every record is reconciled at start; a generation bump is one upsert; a status-only update none', async () => {
      const atStart = backend.writes().length;
      assert.ok(atStart >= 7, `every served record at start (${atStart})`);
      await quiet(c);
      backend.calls.length = 0;
      await mergePatch(`${path('ok-3')}/status`, { status: { lastOperation: { description: 'x' } } });
      await quiet(c);
      assert.deepEqual(backend.writes(), []);
      await mergePatch(path('ok-3'), { spec: { values: ['192.0.2.3'] } });
      await waitFor('upsert', async () => (backend.writes().length === 1 ? true : undefined));
      await quiet(c);
      assert.deepEqual(
        backend.writes().map((w) => [w.op, w.name, w.values]),
        [['upsert', 'ok-3.example.test', ['192.0.2.3']]],
      );
    });
  });

  describe('deletion never leaks a record', () => {
    const backend = new FakeBackend();
    let c: DNSRecordController;
    const gone = (name: string): Promise<true> => waitFor(`${name} gone`, async () => ((await get(name)) === undefined ? true : undefined));

    before(async () => {
      // Deleted while no controller ran, so the controller first sees them with deletionTimestamp:
      // 'lost' has our finalizer and no status at all (the status write after its upsert was lost);
      // 'foreign' is held by another finalizer only.
      backend.records.set('Z1|lost.example.test|A', { name: 'lost.example.test', type: 'A', ttl: 120, values: ['192.0.2.1'] });
      await seed('lost', { finalizer: true });
      await seed('foreign', { status: SUCCEEDED });
      await mergePatch(path('foreign'), { metadata: { finalizers: ['example.com/other'] } });
      await client.request('DELETE', path('lost'));
      await client.request('DELETE', path('foreign'));
      assert.equal((await get('lost'))?.status, undefined);
      c = await start(backend);
    });
    after(stopAll);

    test('no conditions, record present at the provider: removed at the provider, then the finalizer', async () => {
      await gone('lost');
      assert.deepEqual(
        backend.writes().filter((w) => w.name === 'lost.example.test'),
        [{ op: 'remove', zone: 'Z1', name: 'lost.example.test', type: 'A' }],
      );
      assert.equal(backend.records.has('Z1|lost.example.test|A'), false);
    });

    test('without our finalizer (another one holds the object): no-op, no provider call, no status', async () => {
      await quiet(c);
      const rec = await get('foreign');
      assert.ok(rec?.metadata.deletionTimestamp !== undefined);
      assert.deepEqual(rec.metadata.finalizers, ['example.com/other']);
      assert.equal(rec.status?.lastOperation?.type, 'Create', 'no Delete status written');
      assert.deepEqual(
        backend.writes().filter((w) => w.name === 'foreign.example.test'),
        [],
      );
      await mergePatch(path('foreign'), { metadata: { finalizers: null } });
      await gone('foreign');
    });

    test('Created True but the record already gone at the provider: deletion succeeds', async () => {
      await seed('already-gone', { finalizer: true, status: { ...SUCCEEDED, zone: 'Z1' } });
      await quiet(c);
      backend.calls.length = 0;
      await client.request('DELETE', path('already-gone'));
      await gone('already-gone');
      assert.deepEqual(
        backend.writes().map((w) => w.op),
        ['remove'],
      );
    });

    test('Created False (the first write failed and was never retried successfully): no provider removal, the finalizer goes', async () => {
      backend.failWith = new Error('InvalidChangeBatch: cannot write');
      await seed('never');
      const rec = await waitFor('create error', async () => {
        const r = await get('never');
        return r?.status?.lastOperation?.state === 'Error' ? r : undefined;
      });
      assert.equal(rec.status?.conditions?.find((x) => x.type === 'Created')?.status, 'False');
      backend.calls.length = 0;
      await client.request('DELETE', path('never'));
      await gone('never');
      backend.failWith = undefined;
      assert.deepEqual(
        backend.writes().filter((w) => w.op === 'remove'),
        [],
      );
    });

    test('a delete that fails reports Delete Error and keeps the finalizer; it is retried', async () => {
      await seed('stuck', { finalizer: true, status: SUCCEEDED });
      await quiet(c);
      backend.failWith = new Error('Throttling: Rate exceeded');
      await client.request('DELETE', path('stuck'));
      const rec = await waitFor('delete error', async () => {
        const r = await get('stuck');
        return r?.status?.lastOperation?.type === 'Delete' && r.status.lastOperation.state === 'Error' ? r : undefined;
      });
      assert.match(rec.status?.lastError?.description ?? '', /^Error deleting DNSRecord: /);
      assert.ok(rec.metadata.finalizers?.includes(FINALIZER));
      backend.failWith = undefined;
      await gone('stuck');
    });
  });

  describe('classes (HasClass)', () => {
    const base = { client: {} as KubeClient, logger: silentLogger(), limiters: new CredentialLimiters({ ratePerSecond: 0 }), types: ['fake'], backends: {} };
    const rec = (cls: string | undefined): DNSRecord => ({
      metadata: { name: 'r' },
      spec: {
        type: 'fake',
        secretRef: { name: 's' },
        name: 'r.example.test',
        recordType: 'A',
        values: ['192.0.2.1'],
        ...(cls === undefined ? {} : { class: cls }),
      },
    });

    test('no classes configured serves unset and shoot, not seed or garden', () => {
      const c = new DNSRecordController({ ...base, extensionClasses: [] });
      assert.deepEqual(
        [undefined, 'shoot', 'seed', 'garden'].map((x) => c.serves(rec(x))),
        [true, true, false, false],
      );
    });

    test('--extension-classes seed,shoot serves both; garden alone serves only garden', () => {
      const both = new DNSRecordController({ ...base, extensionClasses: ['seed', 'shoot'] });
      assert.deepEqual(
        [undefined, 'shoot', 'seed', 'garden'].map((x) => both.serves(rec(x))),
        [true, true, true, false],
      );
      const garden = new DNSRecordController({ ...base, extensionClasses: ['garden'] });
      assert.deepEqual(
        [undefined, 'shoot', 'seed', 'garden'].map((x) => garden.serves(rec(x))),
        [false, false, false, true],
      );
    });
  });

  test("the command line takes Gardener's flags as its charts pass them", () => {
    const cfg = parseContainerArgs(['dnsrecord-controller', '--extension-classes=seed,shoot', '--ignore-operation-annotation=false']);
    assert.deepEqual(extensionClassesOf(cfg.flags), ['seed', 'shoot']);
    assert.equal(cfg.flags.bool('ignore-operation-annotation'), false);
    const legacy = parseContainerArgs(['dnsrecord-controller', '--dnsrecord-class', 'garden', '--ignore-operation-annotation']);
    assert.deepEqual(extensionClassesOf(legacy.flags), ['garden']);
    assert.equal(legacy.flags.bool('ignore-operation-annotation'), true);
    assert.deepEqual(extensionClassesOf(parseContainerArgs(['dnsrecord-controller']).flags), ['shoot']);
  });

  describe('the Cluster of a shoot namespace', () => {
    const SHOOT_NS = 'shoot--dev--failed';
    const backend = new FakeBackend();
    let c: DNSRecordController;

    before(async () => {
      await client.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SHOOT_NS, labels: { 'gardener.cloud/role': 'shoot' } } },
      });
      await client.request('POST', collectionPath(CLUSTERS, ''), {
        body: {
          apiVersion: CLUSTERS.apiVersion,
          kind: 'Cluster',
          metadata: { name: SHOOT_NS },
          spec: {
            cloudProfile: {},
            seed: {},
            shoot: { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', status: { lastOperation: { type: 'Reconcile', state: 'Failed' } } },
          },
        },
      });
      c = await start(backend);
    });
    after(stopAll);

    test('a failed shoot: its DNSRecords are skipped (no call, no status)', async () => {
      backend.calls.length = 0;
      await seed('of-failed', { ns: SHOOT_NS, annotations: { [OPERATION_ANNOTATION]: 'reconcile' } });
      await quiet(c);
      assert.deepEqual(backend.writes(), []);
      const r = await get('of-failed', SHOOT_NS);
      assert.equal(r?.status?.lastOperation ?? undefined, undefined);
    });

    test('once the shoot is no longer failed, the annotation reconciles it', async () => {
      const current = await client.request<{ metadata: { resourceVersion: string } }>('GET', objectPath(CLUSTERS, '', SHOOT_NS));
      await client.request('PATCH', objectPath(CLUSTERS, '', SHOOT_NS), {
        body: { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { shoot: { status: { lastOperation: { state: 'Succeeded' } } } } },
        contentType: 'application/merge-patch+json',
      });
      await mergePatch(path('of-failed', SHOOT_NS), { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } } });
      await waitFor('reconciled', async () => ((await get('of-failed', SHOOT_NS))?.status?.lastOperation?.state === 'Succeeded' ? true : undefined));
      assert.deepEqual(
        backend.writes().map((w) => w.op),
        ['upsert'],
      );
    });

    test('force deletion confirmed on the shoot: deleted as provider-aws does (ForceDelete = Delete)', async () => {
      await client.request('PATCH', objectPath(CLUSTERS, '', SHOOT_NS), {
        body: { spec: { shoot: { metadata: { annotations: { 'confirmation.gardener.cloud/force-deletion': 'true' } } } } },
        contentType: 'application/merge-patch+json',
      });
      backend.calls.length = 0;
      await client.request('DELETE', path('of-failed', SHOOT_NS));
      await waitFor('gone', async () => ((await get('of-failed', SHOOT_NS)) === undefined ? true : undefined));
      assert.deepEqual(
        backend.writes().map((w) => w.op),
        ['remove'],
      );
    });
  });
});
