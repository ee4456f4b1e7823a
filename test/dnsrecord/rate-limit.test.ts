/**
 * 200 DNSRecords sharing one Secret go through one token bucket: on a virtual clock (the limiter's
 * sleeps advance it), no one-second window admits more than the burst plus the rate, and every
 * Route53 request the emulator saw was admitted by the limiter.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backendTypes } from '../../src/dnsrecord/backend-types.ts';
import type { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import { CredentialLimiters } from '../../src/dnsrecord/limiters.ts';
import { DNSRECORDS } from '../../src/dnsrecord/types.ts';
import type { DNSRecord } from '../../src/dnsrecord/types.ts';
import { collectionPath } from '../../src/kube/resource.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import { NS, create, createSecret, dnsRecord, startController, startEnv, waitFor } from './harness.ts';
import type { Env } from './harness.ts';

const RECORDS = 200;
const RATE = 5;

describe('dnsrecord-controller: rate limit per credential', () => {
  let env: Env;
  let emu: AwsEmulators;
  let controller: DNSRecordController;
  let virtual = 0;
  const admitted: { key: string; at: number }[] = [];
  let successes = 0;

  before(async () => {
    env = await startEnv();
    emu = await startAwsEmulators();
    emu.route53.createZone('example.com');
    const root = emu.aws.rootIdentity;
    await createSecret(env.client, 'shared', { accessKeyID: root.accessKeyId, secretAccessKey: root.secretAccessKey });
    const limiters = new CredentialLimiters({
      ratePerSecond: RATE,
      now: () => virtual,
      sleep: (ms) => {
        virtual += ms;
        return Promise.resolve();
      },
      onTake: (key, at) => admitted.push({ key, at }),
    });
    controller = startController(env, {
      concurrency: 10,
      limiters,
      onResult: (_k, outcome) => void (outcome === 'success' && successes++),
      backends: backendTypes(['aws-route53'], { aws: { region: 'us-east-1', endpointUrl: emu.url, retries: 0 }, rfc2136TimeoutMs: 2000 }),
    });
  });

  after(async () => {
    await controller?.stop();
    await emu?.stop();
    await env?.stop();
  });

  test(`${RECORDS} records with one Secret: at most burst + rate requests in any second, all through the limiter`, async (t) => {
    for (let i = 0; i < RECORDS; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, RECORDS - i) }, (_, j) =>
          create(env.client, dnsRecord(`r${i + j}`, { type: 'aws-route53', name: `r${i + j}.example.com`, secretRef: { name: 'shared' } })),
        ),
      );
    }
    // Polling the list of 200 objects would cost more than the controller's work: count reconciles first.
    await waitFor('a successful reconcile per record', () => Promise.resolve(successes >= RECORDS ? true : undefined), 120_000);
    const list = await env.client.request<{ items: DNSRecord[] }>('GET', collectionPath(DNSRECORDS, NS));
    assert.equal(list.items.filter((r) => r.status?.lastOperation?.state === 'Succeeded').length, RECORDS);
    const requests = emu.aws.count('route53');
    assert.ok(requests >= RECORDS, `only ${requests} Route53 requests`);
    assert.equal(admitted.length, requests, 'every Route53 request was admitted by the limiter');
    assert.deepEqual([...new Set(admitted.map((a) => a.key))], [`aws:${emu.aws.rootIdentity.accessKeyId}`]);
    const times = admitted.map((a) => a.at).sort((a, b) => a - b);
    let worst = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while ((times[j] ?? Infinity) < (times[i] ?? 0) + 1000) j++;
      worst = Math.max(worst, j - i);
    }
    t.diagnostic(`${requests} Route53 requests over ${((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000}s of virtual time; busiest second: ${worst}`);
    assert.ok(worst <= 2 * RATE, `${worst} requests in one second`);
    const spanS = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
    assert.ok(spanS >= (requests - RATE) / RATE - 1, `${requests} requests in ${spanS}s of virtual time`);
  });
});
