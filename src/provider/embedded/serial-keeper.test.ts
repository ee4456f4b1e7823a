import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ZoneContent } from '../../dns/zone-content.ts';
import { KubeApiError } from '../../kube/errors.ts';
import type { RequestSpec } from '../../kube/client.ts';
import { silentLogger } from '../../log.ts';
import { WARN, capturingLogger } from '../../../test/support/log-capture.ts';
import { ConfigMapSerialKeeper, SerialKeeperForbidden, SerialRecorder } from './serial-keeper.ts';
import type { SerialKeeper } from './serial-keeper.ts';

const PATH = '/api/v1/namespaces/ns/configmaps/serials';

/** One ConfigMap with resourceVersions; `conflicts` PATCHes answer 409, `forbid` refuses a verb. */
class FakeApi {
  cm: { metadata: { name: string; namespace: string; resourceVersion: string }; data: Record<string, string> } | undefined;
  rv = 1;
  conflicts = 0;
  forbid: string | undefined;
  readonly calls: string[] = [];

  request<T>(method: string, path: string, spec: RequestSpec = {}): Promise<T> {
    this.calls.push(method);
    const verb = { GET: 'get', POST: 'create', PATCH: 'patch' }[method] ?? method;
    if (verb === this.forbid) return Promise.reject(new KubeApiError('forbidden', 403, 'Forbidden'));
    if (method === 'GET') {
      if (path !== PATH || this.cm === undefined) return Promise.reject(new KubeApiError('not found', 404, 'NotFound'));
      return Promise.resolve(structuredClone(this.cm) as T);
    }
    const body = spec.body as { metadata: { resourceVersion?: string }; data: Record<string, string> };
    if (method === 'POST') {
      if (this.cm !== undefined) return Promise.reject(new KubeApiError('exists', 409, 'AlreadyExists'));
      this.cm = { metadata: { name: 'serials', namespace: 'ns', resourceVersion: String(++this.rv) }, data: { ...body.data } };
      return Promise.resolve({} as T);
    }
    assert.equal(spec.contentType, 'application/merge-patch+json');
    if (this.cm === undefined) return Promise.reject(new KubeApiError('not found', 404, 'NotFound'));
    if (this.conflicts > 0 || body.metadata.resourceVersion !== this.cm.metadata.resourceVersion) {
      this.conflicts--;
      // Someone else wrote meanwhile.
      this.cm.metadata.resourceVersion = String(++this.rv);
      return Promise.reject(new KubeApiError('conflict', 409, 'Conflict'));
    }
    this.cm = { ...this.cm, metadata: { ...this.cm.metadata, resourceVersion: String(++this.rv) }, data: { ...this.cm.data, ...body.data } };
    return Promise.resolve({} as T);
  }
}

const keeperOn = (api: FakeApi, maxConflicts = 5): ConfigMapSerialKeeper =>
  new ConfigMapSerialKeeper({ client: api, namespace: 'ns', name: 'serials', maxConflicts, sleep: () => Promise.resolve() });

describe('ConfigMapSerialKeeper', () => {
  test('creates the ConfigMap, merges one key per zone, loads them back and skips entries that are no serial', async () => {
    const api = new FakeApi();
    const keeper = keeperOn(api);
    assert.deepEqual(await keeper.load(), new Map());
    await keeper.save('example.org', 1_700_000_005);
    await keeper.save('b.test', 42);
    api.cm!.data['junk.test'] = 'soon';
    assert.deepEqual(
      await keeper.load(),
      new Map([
        ['example.org', 1_700_000_005],
        ['b.test', 42],
      ]),
    );
  });

  test('never moves a kept serial back (RFC 1982), and moves it forward across the wrap', async () => {
    const api = new FakeApi();
    const keeper = keeperOn(api);
    await keeper.save('example.org', 2 ** 32 - 2);
    await keeper.save('example.org', 2 ** 31);
    assert.equal(api.cm!.data['example.org'], String(2 ** 32 - 2));
    await keeper.save('example.org', 3);
    assert.equal(api.cm!.data['example.org'], '3');
  });

  test('a conflict is read again and retried; too many conflicts fail the save', async () => {
    const api = new FakeApi();
    const keeper = keeperOn(api, 3);
    await keeper.save('example.org', 10);
    api.conflicts = 2;
    await keeper.save('example.org', 11);
    assert.equal(api.cm!.data['example.org'], '11');
    api.conflicts = 3;
    await assert.rejects(keeper.save('example.org', 12), (err: unknown) => err instanceof KubeApiError && err.status === 409);
  });

  test('a 403 names the refused verb', async () => {
    const api = new FakeApi();
    api.forbid = 'create';
    await assert.rejects(keeperOn(api).save('example.org', 1), (err: unknown) => err instanceof SerialKeeperForbidden && err.verb === 'create');
  });
});

/** A keeper in memory that fails the first `failures` saves. */
class FakeKeeper implements SerialKeeper {
  readonly where = 'configmap ns/fake';
  readonly kept = new Map<string, number>();
  failures = 0;
  failWith: () => Error = () => new KubeApiError('unavailable', 503, 'ServiceUnavailable');
  load(): Promise<Map<string, number>> {
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(this.failWith());
    }
    return Promise.resolve(new Map(this.kept));
  }
  save(zone: string, serial: number): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(this.failWith());
    }
    this.kept.set(zone, serial);
    return Promise.resolve();
  }
}

const zone = (origin: string, serial: number): ZoneContent => ({
  origin,
  soa: { mname: `ns1.${origin}`, rname: `hostmaster.${origin}`, serial, refresh: 1, retry: 1, expire: 1, minimum: 1, ttl: 1 },
  rrsets: [],
});

describe('SerialRecorder', () => {
  test('saves the newest serial of each zone, retrying failures with one rate-limited warning', async () => {
    const keeper = new FakeKeeper();
    keeper.failures = 3;
    const { logger, lines } = capturingLogger();
    const recorder = new SerialRecorder({ keeper, logger, backoff: { initialMs: 1, maxMs: 2 } });
    recorder.zoneChanged(zone('example.org', 5));
    recorder.zoneChanged(zone('example.org', 6));
    recorder.zoneChanged(zone('b.test', 9));
    await recorder.idle();
    assert.deepEqual(
      keeper.kept,
      new Map([
        ['example.org', 6],
        ['b.test', 9],
      ]),
    );
    assert.equal(lines.filter((l) => l.level === WARN).length, 1);
    await recorder.close();
  });

  test('a refused verb is warned about once, naming it and the resource; nothing is saved by a replica that does not write', async () => {
    const keeper = new FakeKeeper();
    keeper.failures = 4;
    keeper.failWith = () => new SerialKeeperForbidden('patch', keeper.where, new Error('forbidden'));
    const { logger, lines } = capturingLogger();
    let leader = false;
    const recorder = new SerialRecorder({ keeper, logger, canSave: () => leader, backoff: { initialMs: 1, maxMs: 2 } });
    recorder.zoneChanged(zone('example.org', 5));
    await recorder.idle();
    assert.equal(keeper.kept.size, 0);
    leader = true;
    recorder.zoneChanged(zone('example.org', 7));
    await recorder.idle();
    assert.equal(keeper.kept.get('example.org'), 7);
    const warnings = lines.filter((l) => l.level === WARN);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.['verb'], 'patch');
    assert.equal(warnings[0]?.['resource'], 'configmaps');
    await recorder.close();
  });
});

describe('SerialRecorder.loadFloors', () => {
  test('retries a failing load, and starts without floors when the cluster does not answer', async () => {
    const keeper = new FakeKeeper();
    keeper.kept.set('example.org', 77);
    keeper.failures = 1;
    const recorder = new SerialRecorder({ keeper, logger: silentLogger() });
    const opts = { attempts: 2, sleep: () => Promise.resolve() };
    assert.deepEqual(await recorder.loadFloors(opts), new Map([['example.org', 77]]));
    keeper.failures = 2;
    assert.deepEqual(await recorder.loadFloors(opts), new Map());
  });

  test('a refused get is warned about once, whether the load or a later save meets it', async () => {
    const keeper = new FakeKeeper();
    keeper.failures = 3;
    keeper.failWith = () => new SerialKeeperForbidden('get', keeper.where, new Error('forbidden'));
    const { logger, lines } = capturingLogger();
    const recorder = new SerialRecorder({ keeper, logger, backoff: { initialMs: 1, maxMs: 2 } });
    assert.deepEqual(await recorder.loadFloors(), new Map());
    recorder.zoneChanged(zone('example.org', 3));
    await recorder.idle();
    assert.equal(keeper.kept.get('example.org'), 3);
    assert.equal(lines.filter((l) => l.level === WARN).length, 1);
  });
});

describe('SerialRecorder.reserve', () => {
  test('saves before it resolves, and zoneChanged for that serial saves nothing more', async () => {
    const keeper = new FakeKeeper();
    const saves: string[] = [];
    const save = keeper.save.bind(keeper);
    keeper.save = (zone, serial) => (saves.push(`${zone}@${serial}`), save(zone, serial));
    const recorder = new SerialRecorder({ keeper, logger: silentLogger() });
    await recorder.reserve('example.org', 5);
    assert.equal(keeper.kept.get('example.org'), 5, 'kept by the time reserve resolved');
    recorder.zoneChanged(zone('example.org', 5));
    await recorder.idle();
    assert.deepEqual(saves, ['example.org@5']);
    // A newer serial than the reserved one is saved in the background as before.
    recorder.zoneChanged(zone('example.org', 6));
    await recorder.idle();
    assert.deepEqual(saves, ['example.org@5', 'example.org@6']);
    await recorder.close();
  });

  test('a replica that cannot save reserves nothing', async () => {
    const keeper = new FakeKeeper();
    const recorder = new SerialRecorder({ keeper, logger: silentLogger(), canSave: () => false });
    await recorder.reserve('example.org', 5);
    assert.equal(keeper.kept.size, 0);
    await recorder.close();
  });

  test('a save that never answers holds the commit back for reserveTimeoutMs only, and never throws', async () => {
    const keeper = new FakeKeeper();
    keeper.save = () => new Promise<void>(() => undefined);
    const recorder = new SerialRecorder({ keeper, logger: silentLogger(), reserveTimeoutMs: 50 });
    const started = Date.now();
    const outcome = await Promise.race([
      recorder.reserve('example.org', 5).then(() => 'resolved'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5000).unref()),
    ]);
    assert.equal(outcome, 'resolved');
    assert.ok(Date.now() - started >= 45, `resolved after ${Date.now() - started} ms`);
    // Not kept: the serial is not counted as reserved, so zoneChanged still saves it.
    const failing = new FakeKeeper();
    failing.failures = 1;
    const other = new SerialRecorder({ keeper: failing, logger: silentLogger(), backoff: { initialMs: 1, maxMs: 2 } });
    await other.reserve('example.org', 7);
    assert.equal(failing.kept.size, 0);
    other.zoneChanged(zone('example.org', 7));
    await other.idle();
    assert.equal(failing.kept.get('example.org'), 7);
    await other.close(0);
    await recorder.close(0);
  });
});
