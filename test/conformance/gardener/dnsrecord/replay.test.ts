/**
 * Replays Gardener's unit-test cases of the DNSRecord controller (reconciler.json, utils.json,
 * mapper.json: facts only) through Hostwarden: the Created-condition and deletion cases through
 * the real reconciler and client against the test API server with Gardener's DNSRecord CRD and a
 * backend that records provider calls; the zone cases through the reconciler's zone choice; the
 * deliberate differences are checked for their reason and Hostwarden's answer.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CredentialLimiters } from '../../../../src/dnsrecord/limiters.ts';
import { DNSRecordReconciler } from '../../../../src/dnsrecord/reconciler.ts';
import { createdConditionStatus } from '../../../../src/dnsrecord/status.ts';
import { DNSRECORDS, FINALIZER } from '../../../../src/dnsrecord/types.ts';
import type { DNSRecord, DNSRecordStatus, GardenerCondition } from '../../../../src/dnsrecord/types.ts';
import { isInZone } from '../../../../src/endpoint/name.ts';
import { KubeClient } from '../../../../src/kube/client.ts';
import { collectionPath, objectPath } from '../../../../src/kube/resource.ts';
import { silentLogger } from '../../../../src/log.ts';
import { installCrd, loadCrd } from '../../../support/crds/load.ts';
import { startTestApiServer } from '../../../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../../../support/kube-apiserver/server.ts';
import { FakeBackend } from '../../../dnsrecord/fake-backend.ts';

type Status = 'True' | 'False' | 'Unknown';
interface Upstream {
  repo: string;
  file: string;
  test: string;
}
interface Base {
  name: string;
  upstream: Upstream;
  differs?: string;
  hostwarden?: string;
}
interface CreatedConditionCase extends Base {
  kind: 'created-condition';
  before: Status;
  outcome: 'success' | 'error';
  expect: { conditions: number; status: Status; reason?: string; message?: string; lastUpdateTimeKept?: boolean };
}
interface CreatedStatusCase extends Base {
  kind: 'created-status';
  conditions: { type: string; status: Status }[];
  expect: { status: Status; deleteCallsProvider: boolean };
}
interface MatchesDomainCase extends Base {
  kind: 'matches-domain';
  recordName: string;
  domain: string;
  expect: boolean;
}
interface FindZoneCase extends Base {
  kind: 'find-zone';
  zones: Record<string, string> | null;
  recordName: string;
  expect: string;
}
interface DifferingCase extends Base {
  kind: 'meta-record-name' | 'cluster-mapper';
}
type Case = CreatedConditionCase | CreatedStatusCase | MatchesDomainCase | FindZoneCase | DifferingCase;

const HERE = dirname(fileURLToPath(import.meta.url));
const load = (file: string): Case[] => (JSON.parse(readFileSync(join(HERE, file), 'utf8')) as { cases: Case[] }).cases;
const NS = 'shoot--conformance--dnsrecord';
const OLD = '2026-01-01T00:00:00.000Z';

function condition(type: string, status: Status): GardenerCondition {
  return { type, status, reason: status === 'False' ? 'Error' : 'Success', message: `${type} is ${status}`, lastTransitionTime: OLD, lastUpdateTime: OLD };
}

describe("Gardener's DNSRecord controller unit-test cases, replayed through Hostwarden", () => {
  let api: TestApiServer;
  let client: KubeClient;
  let n = 0;

  before(async () => {
    api = await startTestApiServer({ namespaces: [NS] });
    client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    await installCrd(api, loadCrd('gardener', 'dnsrecords.extensions.gardener.cloud'));
  });
  after(async () => {
    client?.close();
    await api?.stop();
  });

  const reconcilerWith = (backend: FakeBackend): DNSRecordReconciler =>
    new DNSRecordReconciler({ client, logger: silentLogger(), limiters: new CredentialLimiters({ ratePerSecond: 0 }), backends: { fake: backend.type() } });
  const get = (name: string): Promise<DNSRecord | undefined> => client.request<DNSRecord>('GET', objectPath(DNSRECORDS, NS, name)).catch(() => undefined);

  /** A stored DNSRecord for `recordName`, with a finalizer and this status (through the status subresource). */
  async function seed(recordName: string, status: DNSRecordStatus | undefined): Promise<string> {
    const name = `case-${++n}`;
    await client.request('POST', collectionPath(DNSRECORDS, NS), {
      body: {
        apiVersion: DNSRECORDS.apiVersion,
        kind: 'DNSRecord',
        metadata: { name, namespace: NS, finalizers: [FINALIZER] },
        spec: { type: 'fake', secretRef: { name: 'unused' }, name: recordName, recordType: 'A', values: ['192.0.2.1'] },
      },
    });
    if (status !== undefined)
      await client.request('PATCH', `${objectPath(DNSRECORDS, NS, name)}/status`, { body: { status }, contentType: 'application/merge-patch+json' });
    return name;
  }

  /** One reconcile; an error the queue would retry is the case's outcome, not a test failure. */
  async function reconcileOnce(r: DNSRecordReconciler, name: string): Promise<void> {
    await r.reconcile(`${NS}/${name}`).catch(() => undefined);
  }

  function checkDifference(c: Case): void {
    assert.ok((c.differs ?? '').length > 20, 'a deliberate difference names its reason');
    assert.ok((c.hostwarden ?? '').length > 0, "and Hostwarden's answer");
  }

  describe('reconciler.json', () => {
    for (const c of load('reconciler.json')) {
      test(`${c.upstream.test}`, async () => {
        if (c.kind === 'created-condition') {
          const backend = new FakeBackend();
          const before: DNSRecordStatus | undefined =
            c.before === 'Unknown'
              ? undefined
              : {
                  lastOperation: { type: 'Create', state: c.before === 'True' ? 'Succeeded' : 'Error', description: '', lastUpdateTime: OLD, progress: 100 },
                  conditions: [
                    {
                      ...condition('Created', c.before),
                      lastUpdateTime: OLD,
                    },
                  ],
                };
          const name = await seed('created.example.test', before);
          if (c.outcome === 'error') backend.failWith = new Error('InvalidChangeBatch: the provider refused the change');
          await reconcileOnce(reconcilerWith(backend), name);
          const stored = await get(name);
          assert.equal(stored?.status?.lastOperation?.state, c.outcome === 'success' ? 'Succeeded' : 'Error');
          const conditions = stored?.status?.conditions ?? [];
          assert.equal(conditions.length, c.expect.conditions);
          const created = conditions.find((x) => x.type === 'Created');
          assert.equal(created?.status, c.expect.status);
          if (c.expect.reason !== undefined) assert.equal(created?.reason, c.expect.reason);
          if (c.expect.message !== undefined) assert.equal(created?.message, c.expect.message);
          const kept = c.expect.lastUpdateTimeKept ?? c.before === c.expect.status;
          assert.equal(Date.parse(created?.lastUpdateTime ?? '') === Date.parse(OLD), kept, `lastUpdateTime ${kept ? 'kept' : 'moved'}`);
        } else if (c.kind === 'created-status') {
          const conditions = c.conditions.map((x) => condition(x.type, x.status));
          assert.equal(createdConditionStatus({ conditions }), c.expect.status);
          // Through the reconciler: deleting the record calls the provider unless Created is False.
          const backend = new FakeBackend();
          backend.records.set('Z1|status.example.test|A', { name: 'status.example.test', type: 'A', ttl: 120, values: ['192.0.2.1'] });
          const name = await seed('status.example.test', {
            lastOperation: { type: 'Reconcile', state: 'Succeeded', description: '', lastUpdateTime: OLD, progress: 100 },
            conditions,
          });
          await client.request('DELETE', objectPath(DNSRECORDS, NS, name));
          await reconcileOnce(reconcilerWith(backend), name);
          assert.equal(await get(name), undefined, 'the finalizer is gone and the object with it');
          assert.equal(backend.writes().filter((w) => w.op === 'remove').length, c.expect.deleteCallsProvider ? 1 : 0);
        } else assert.fail(`unexpected kind ${c.kind}`);
      });
    }
  });

  describe('utils.json', () => {
    for (const c of load('utils.json')) {
      test(`${c.upstream.test}`, async () => {
        if (c.differs !== undefined) return checkDifference(c);
        if (c.kind === 'matches-domain') {
          assert.equal(isInZone(c.recordName, c.domain), c.expect);
        } else if (c.kind === 'find-zone') {
          const backend = new FakeBackend(Object.entries(c.zones ?? {}).map(([zoneName, id]) => ({ id, name: zoneName })));
          const name = await seed(c.recordName, undefined);
          await reconcileOnce(reconcilerWith(backend), name);
          const upserts = backend.writes().filter((w) => w.op === 'upsert');
          const stored = await get(name);
          if (c.expect === '') {
            assert.deepEqual(upserts, []);
            assert.deepEqual(stored?.status?.lastError?.codes, ['ERR_CONFIGURATION_PROBLEM']);
          } else {
            assert.deepEqual(
              upserts.map((u) => u.zone),
              [c.expect],
            );
            assert.equal(stored?.status?.zone, c.expect);
          }
        } else assert.fail(`unexpected kind ${c.kind}`);
      });
    }
  });

  describe('mapper.json', () => {
    for (const c of load('mapper.json')) {
      test(`${c.upstream.test}`, () => {
        checkDifference(c);
        // Hostwarden's answer: the controller watches DNSRecords only.
        const source = readFileSync(join(HERE, '../../../../src/dnsrecord/controller.ts'), 'utf8');
        assert.deepEqual(
          [...source.matchAll(/new Reflector<\w+>\(\{[^}]*resource: (\w+)/g)].map((m) => m[1]),
          ['DNSRECORDS'],
        );
      });
    }
  });
});
