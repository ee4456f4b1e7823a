/**
 * The DNSRecord controller with the embedded type against the test API server: records appear in
 * (and disappear from) the built-in DNS server, asked with the real dig; status follows Gardener's
 * contract; each operation annotation does what gardenlet expects.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendTypes } from '../../src/dnsrecord/backend-types.ts';
import type { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import { CONDITION_CREATED, ERR_CONFIGURATION_PROBLEM, FINALIZER, OPERATION_ANNOTATION } from '../../src/dnsrecord/types.ts';
import { DnsServer } from '../../src/dns/server/server.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { silentLogger } from '../../src/log.ts';
import { EmbeddedBackend } from '../../src/dnsrecord/backends/embedded.ts';
import { ZoneStore } from '../../src/provider/embedded/zone-store.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { NS, create, dnsRecord, get, patch, remove, settled, startController, startEnv, waitFor } from './harness.ts';
import type { Env } from './harness.ts';

const skip = !(await digAvailable()) && 'dig is not installed (apt-get install bind9-dnsutils)';

describe('dnsrecord-controller, embedded type', { skip }, () => {
  let env: Env;
  let dir: string;
  let store: ZoneStore;
  let server: DnsServer;
  let port: number;
  let controller: DNSRecordController;
  let events: EventRecorder;

  const answer = async (name: string, type = 'A'): Promise<string[]> =>
    (await dig(port, [name, type, '+norec'])).answer.map((l) => l.split(' ').slice(3).join(' '));

  before(async () => {
    env = await startEnv();
    dir = await mkdtemp(join(tmpdir(), 'hw-dnsrecord-'));
    store = new ZoneStore({ dataDir: dir, zones: ['example.test', 'sub.example.test'], logger: silentLogger() });
    await store.open();
    server = new DnsServer({ listen: ['127.0.0.1:0'], logger: silentLogger() });
    port = (await server.start()).addresses[0]?.udp.port ?? 0;
    store.addListener(server);
    events = new EventRecorder({ client: env.client, logger: silentLogger(), instance: 'test' });
    controller = startController(env, {
      events,
      syncPeriodMs: 3_600_000,
      backends: backendTypes(['embedded'], { aws: { region: 'us-east-1', endpointUrl: '', retries: 0 }, rfc2136TimeoutMs: 2000, store }),
    });
  });

  after(async () => {
    await controller?.stop();
    await server?.stop();
    await store?.close();
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('create: the record answers, status.zone is the longest zone, Created=True, finalizer set', async () => {
    await create(env.client, dnsRecord('api', { type: 'embedded', name: 'api.sub.example.test', values: ['192.0.2.10', '192.0.2.11'], ttl: 60 }));
    const rec = await settled(env.client, 'api', 'Create', 'Succeeded');
    assert.equal(rec.status?.zone, 'sub.example.test');
    assert.equal(rec.status?.conditions?.find((c) => c.type === CONDITION_CREATED)?.status, 'True');
    assert.equal(rec.status?.lastError ?? undefined, undefined);
    assert.ok(rec.metadata.finalizers?.includes(FINALIZER));
    assert.deepEqual((await answer('api.sub.example.test')).sort(), ['A 192.0.2.10', 'A 192.0.2.11']);
  });

  test('the reconcile annotation is removed first and the second reconcile lists no zones', async () => {
    const listings = controller.reconciler.zoneListings;
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } } });
    const rec = await waitFor('reconcile done', async () => {
      const r = await get(env.client, 'api');
      return r?.status?.lastOperation?.type === 'Reconcile' && r.metadata.annotations?.[OPERATION_ANNOTATION] === undefined ? r : undefined;
    });
    assert.equal(rec.status?.lastOperation?.state, 'Succeeded');
    assert.equal(controller.reconciler.zoneListings, listings);
  });

  test('a value change updates the record', async () => {
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } }, spec: { values: ['192.0.2.99'] } });
    await settled(env.client, 'api', 'Reconcile', 'Succeeded');
    assert.deepEqual(await answer('api.sub.example.test'), ['A 192.0.2.99']);
  });

  test('a success asks for a resync after the sync period, which repairs a record changed by hand', async () => {
    await new EmbeddedBackend(store).upsert('sub.example.test', { name: 'api.sub.example.test', type: 'A', ttl: 60, values: ['198.51.100.1'] });
    assert.deepEqual(await answer('api.sub.example.test'), ['A 198.51.100.1']);
    const result = await controller.reconciler.reconcile(`${NS}/api`);
    assert.deepEqual(result, { requeueAfterMs: 3_600_000 });
    assert.deepEqual(await answer('api.sub.example.test'), ['A 192.0.2.99']);
  });

  test('TXT values are quoted once and split at 255 bytes; a leading _ label and wildcards work', async () => {
    const long = 'v'.repeat(300);
    await create(env.client, dnsRecord('txt', { type: 'embedded', name: '_acme-challenge.example.test', recordType: 'TXT', values: [long] }));
    await create(env.client, dnsRecord('wild', { type: 'embedded', name: '*.apps.example.test', recordType: 'CNAME', values: ['api.sub.example.test'] }));
    await settled(env.client, 'txt', 'Create', 'Succeeded');
    await settled(env.client, 'wild', 'Create', 'Succeeded');
    assert.deepEqual(await answer('_acme-challenge.example.test', 'TXT'), [`TXT "${'v'.repeat(255)}" "${'v'.repeat(45)}"`]);
    assert.deepEqual(await answer('x.apps.example.test', 'CNAME'), ['CNAME api.sub.example.test.']);
  });

  test('delete removes the record, then the finalizer', async () => {
    await remove(env.client, 'txt');
    await waitFor('txt gone', async () => ((await get(env.client, 'txt')) === undefined ? true : undefined));
    assert.deepEqual(await answer('_acme-challenge.example.test', 'TXT'), []);
  });

  test('no zone for the name: ERR_CONFIGURATION_PROBLEM; deleting it never calls the provider', async () => {
    await create(env.client, dnsRecord('nozone', { type: 'embedded', name: 'www.elsewhere.test' }));
    const rec = await settled(env.client, 'nozone', 'Create', 'Error');
    assert.deepEqual(rec.status?.lastError?.codes, [ERR_CONFIGURATION_PROBLEM]);
    assert.match(rec.status?.lastError?.description ?? '', /no zone found for www\.elsewhere\.test/);
    assert.notEqual(rec.status?.conditions?.find((c) => c.type === CONDITION_CREATED)?.status, 'True');
    await events.flush();
    const list = await env.client.request<{ items: { reason?: string; type?: string; regarding?: { name?: string } }[] }>(
      'GET',
      `/apis/events.k8s.io/v1/namespaces/${NS}/events`,
    );
    assert.ok(list.items.some((e) => e.regarding?.name === 'nozone' && e.type === 'Warning' && e.reason === 'CreateFailed'));
    assert.ok(list.items.some((e) => e.regarding?.name === 'api' && e.type === 'Normal' && e.reason === 'CreateSucceeded'));
    await remove(env.client, 'nozone');
    await waitFor('nozone gone', async () => ((await get(env.client, 'nozone')) === undefined ? true : undefined));
  });

  test('an invalid spec (no webhook in front) is reported with field paths and never written', async () => {
    await create(env.client, dnsRecord('bad', { type: 'embedded', name: 'bad.example.test', values: ['192.0.2.1', 'not-an-ip'] }));
    const rec = await settled(env.client, 'bad', 'Create', 'Error');
    assert.deepEqual(rec.status?.lastError?.codes, [ERR_CONFIGURATION_PROBLEM]);
    assert.match(rec.status?.lastError?.description ?? '', /spec\.values\[1\]/);
    await controller.queue.idle();
    assert.equal(controller.queue.pendingDelays().has(`${NS}/bad`), false, 'an invalid spec waits for its next change, not for a timer');
    assert.deepEqual(await answer('bad.example.test'), []);
  });

  test('wait-for-state: a spec change is not acted on while the annotation is there', async () => {
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'wait-for-state' } }, spec: { values: ['192.0.2.50'] } });
    await controller.queue.idle();
    const rec = await get(env.client, 'api');
    assert.notEqual(rec?.status?.observedGeneration, rec?.metadata.generation);
    assert.deepEqual(await answer('api.sub.example.test'), ['A 192.0.2.99']);
  });

  test("lifting wait-for-state alone changes nothing (Gardener's predicates); the reconcile annotation gardenlet sets next acts on the change held back", async () => {
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: null } } });
    await new Promise((r) => setTimeout(r, 300));
    await controller.queue.idle();
    assert.deepEqual(await answer('api.sub.example.test'), ['A 192.0.2.99']);
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } } });
    await settled(env.client, 'api', 'Reconcile', 'Succeeded');
    assert.deepEqual(await answer('api.sub.example.test'), ['A 192.0.2.50']);
  });

  test('migrate leaves the record in DNS and drops finalizer and annotation; restore brings it back', async () => {
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'migrate' } } });
    const migrated = await waitFor('migrated', async () => {
      const r = await get(env.client, 'api');
      return r?.status?.lastOperation?.type === 'Migrate' && r.metadata.annotations?.[OPERATION_ANNOTATION] === undefined ? r : undefined;
    });
    assert.equal(migrated.status?.lastOperation?.state, 'Succeeded');
    assert.ok(!(migrated.metadata.finalizers ?? []).includes(FINALIZER));
    assert.deepEqual(await answer('api.sub.example.test'), ['A 192.0.2.50']);

    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'restore' } } });
    const restored = await waitFor('restored', async () => {
      const r = await get(env.client, 'api');
      // As with Gardener's predicates, the restore's own status writes (made while the restore
      // annotation is still there) queue the record once more, so a Reconcile may follow.
      const type = r?.status?.lastOperation?.type;
      return (type === 'Restore' || type === 'Reconcile') &&
        r?.status?.lastOperation?.state === 'Succeeded' &&
        r.metadata.annotations?.[OPERATION_ANNOTATION] === undefined
        ? r
        : undefined;
    });
    assert.ok(restored.metadata.finalizers?.includes(FINALIZER));
    assert.equal(restored.status?.observedGeneration, restored.metadata.generation);
    assert.deepEqual(await answer('api.sub.example.test'), ['A 192.0.2.50']);
  });
});
