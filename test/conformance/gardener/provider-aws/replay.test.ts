/**
 * Replays provider-aws's DNSRecord actuator cases (actuator.json) through Hostwarden's
 * aws-route53 backend against the Route53 emulator: reconciles through the real controller and
 * the test API server, deletions through the backend's remove. See the file's "about".
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationProblem } from '../../../../src/dnsrecord/backend.ts';
import { backendTypes } from '../../../../src/dnsrecord/backend-types.ts';
import { AwsRoute53Backend } from '../../../../src/dnsrecord/backends/aws-route53.ts';
import type { DNSRecordController } from '../../../../src/dnsrecord/controller.ts';
import { CredentialLimiters } from '../../../../src/dnsrecord/limiters.ts';
import { recordSetOf } from '../../../../src/dnsrecord/reconciler.ts';
import { DEFAULT_AWS_DNS_REGION, DNSRECORDS } from '../../../../src/dnsrecord/types.ts';
import type { DNSRecord, DNSRecordSpec } from '../../../../src/dnsrecord/types.ts';
import { collectionPath, objectPath } from '../../../../src/kube/resource.ts';
import { silentLogger } from '../../../../src/log.ts';
import { startAwsEmulators } from '../../../support/aws/start.ts';
import type { AwsEmulators } from '../../../support/aws/start.ts';
import { startController, startEnv, waitFor } from '../../../dnsrecord/harness.ts';
import type { Env } from '../../../dnsrecord/harness.ts';

interface RecordSetFact {
  zone: string;
  name: string;
  type: string;
  ttl: number;
  values: string[];
}

interface Outcome {
  calls?: string[];
  changes?: { action: string; name: string; type: string }[];
  recordSets?: RecordSetFact[];
  statusZone?: string;
  codes: string[] | null;
}

interface Case {
  name: string;
  upstream: { file: string; test: string };
  operation: 'reconcile' | 'delete';
  spec?: Partial<DNSRecordSpec>;
  status?: { zone: string };
  fault?: { code: string; message: string; status: number; operations: string[]; count: number };
  existing?: RecordSetFact[];
  expect: Outcome;
  differs?: string;
  hostwarden?: Outcome;
}

const doc = JSON.parse(readFileSync(join(import.meta.dirname, 'actuator.json'), 'utf8')) as {
  fixture: { namespace: string; name: string; secret: Record<string, string>; spec: DNSRecordSpec; zones: { id: string; name: string }[]; region: string };
  cases: Case[];
};
const fx = doc.fixture;

describe("provider-aws's DNSRecord actuator cases", () => {
  let env: Env;
  let emu: AwsEmulators;

  before(async () => {
    env = await startEnv();
    emu = await startAwsEmulators();
    emu.aws.verifySignatures = true;
    emu.aws.addIdentity({
      accessKeyId: fx.secret['accessKeyID'] ?? '',
      secretAccessKey: fx.secret['secretAccessKey'] ?? '',
      arn: 'arn:aws:iam::111122223333:user/gardener',
      account: '111122223333',
    });
    await env.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: fx.namespace } } });
    const data = Object.fromEntries(Object.entries(fx.secret).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
    await env.client.request('POST', `/api/v1/namespaces/${fx.namespace}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: fx.name, namespace: fx.namespace }, data },
    });
  });

  after(async () => {
    await emu?.stop();
    await env?.stop();
  });

  /** Fresh zones as upstream's mock has them, the case's existing sets and fault, and clean counters. */
  function arrange(c: Case): void {
    emu.route53.zones.clear();
    emu.aws.clearFaults();
    for (const z of fx.zones) emu.route53.createZone(z.name, { id: z.id });
    for (const rs of c.existing ?? []) {
      const zone = emu.route53.zones.get(rs.zone);
      assert.ok(zone !== undefined);
      emu.route53.put(zone, { name: `${rs.name}.`, type: rs.type, ttl: rs.ttl, values: rs.values });
    }
    if (c.fault !== undefined) emu.aws.fail(c.fault);
    emu.aws.resetCounts();
    emu.route53.batches.length = 0;
  }

  function record(c: Case): DNSRecord {
    return {
      apiVersion: DNSRECORDS.apiVersion,
      kind: DNSRECORDS.kind,
      metadata: { name: fx.name, namespace: fx.namespace },
      spec: { ...fx.spec, ...(c.spec ?? {}) },
      ...(c.status === undefined ? {} : { status: c.status }),
    };
  }

  async function reconcile(c: Case): Promise<{ codes: string[] | null; statusZone: string | undefined }> {
    const path = objectPath(DNSRECORDS, fx.namespace, fx.name);
    let controller: DNSRecordController | undefined;
    try {
      controller = startController(env, {
        backends: backendTypes(['aws-route53'], { aws: { region: DEFAULT_AWS_DNS_REGION, endpointUrl: emu.url, retries: 0 }, rfc2136TimeoutMs: 2000 }),
      });
      await env.client.request('POST', collectionPath(DNSRECORDS, fx.namespace), { body: record(c) });
      const done = await waitFor(`${c.name}: settled`, async () => {
        const r = await env.client.request<DNSRecord>('GET', path);
        const state = r.status?.lastOperation?.state;
        return state === 'Succeeded' || state === 'Error' ? r : undefined;
      });
      return {
        codes: done.status?.lastOperation?.state === 'Succeeded' ? null : (done.status?.lastError?.codes ?? []),
        statusZone: done.status?.zone,
      };
    } finally {
      await controller?.stop();
      await env.client.request('PATCH', path, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' }).catch(() => undefined);
      await env.client.request('DELETE', path).catch(() => undefined);
      await waitFor('record removed', async () =>
        env.client.request('GET', path).then(
          () => undefined,
          () => true,
        ),
      );
    }
  }

  async function remove(c: Case): Promise<{ codes: string[] | null }> {
    const obj = record(c);
    const backend = AwsRoute53Backend.build(
      {
        spec: obj.spec,
        secret: fx.secret,
        secretName: `${fx.namespace}/${fx.name}`,
        logger: silentLogger(),
        limiters: new CredentialLimiters({ ratePerSecond: 0 }),
      },
      { region: DEFAULT_AWS_DNS_REGION, endpointUrl: emu.url, retries: 0 },
    );
    try {
      await backend.remove(obj.spec.zone ?? obj.status?.zone ?? '', recordSetOf(obj));
      return { codes: null };
    } catch (err) {
      return { codes: err instanceof ConfigurationProblem ? [...err.codes] : [] };
    } finally {
      await backend.close();
    }
  }

  for (const c of doc.cases) {
    test(`${c.name} (${c.upstream.test})${c.differs === undefined ? '' : ' [differs]'}`, async () => {
      arrange(c);
      const want = c.differs === undefined ? c.expect : (c.hostwarden ?? c.expect);
      const got = c.operation === 'reconcile' ? await reconcile(c) : { ...(await remove(c)), statusZone: undefined };
      assert.deepEqual(got.codes, want.codes);
      if (want.statusZone !== undefined) assert.equal(got.statusZone, want.statusZone);
      const calls = emu.aws.log.filter((l) => l.service === 'route53').map((l) => `${l.service}:${l.operation}`);
      // A failed reconcile is retried: upstream's expected calls are the first attempt's.
      if (want.calls !== undefined) assert.deepEqual(want.codes === null ? calls : calls.slice(0, want.calls.length), want.calls);
      assert.ok(
        emu.aws.log.every((l) => l.region === fx.region && l.principal === 'arn:aws:iam::111122223333:user/gardener'),
        'signed for the default DNS region by the Secret key',
      );
      if (want.changes !== undefined)
        assert.deepEqual(
          emu.route53.batches.slice(0, 1).flatMap((b) => b.changes),
          want.changes,
        );
      for (const rs of want.recordSets ?? []) {
        const zone = emu.route53.zones.get(rs.zone);
        assert.ok(zone !== undefined);
        const found = emu.route53.find(zone, rs.name, rs.type);
        assert.deepEqual({ ttl: found?.ttl, values: found?.values }, { ttl: rs.ttl, values: rs.values });
      }
      if (want.recordSets !== undefined && want.recordSets.length === 0)
        for (const z of emu.route53.zones.values()) assert.equal(emu.route53.find(z, fx.spec.name, fx.spec.recordType), undefined);
    });
  }
});
