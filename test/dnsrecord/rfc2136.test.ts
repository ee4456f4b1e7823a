/**
 * The rfc2136 type against a real BIND: TSIG-signed updates with the Secret's keys (both namings),
 * the zone from the Secret, answers checked with dig, and deletion.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { backendTypes } from '../../src/dnsrecord/backend-types.ts';
import type { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import { ERR_CONFIGURATION_PROBLEM, OPERATION_ANNOTATION } from '../../src/dnsrecord/types.ts';
import { bindZone, KEY_NAME } from '../support/bind-rfc2136.ts';
import { namedAvailable, startBind } from '../support/bind.ts';
import type { BindServer } from '../support/bind.ts';
import { dig } from '../support/dig.ts';
import { NS, create, createSecret, dnsRecord, get, patch, remove, settled, startController, startEnv, waitFor } from './harness.ts';
import type { Env } from './harness.ts';

const skip = !(await namedAvailable()) && 'named is not installed (apt-get install bind9 bind9-dnsutils)';

describe('dnsrecord-controller, rfc2136 type against BIND', { skip }, () => {
  let env: Env;
  let bind: BindServer;
  let controller: DNSRecordController;
  const secret = randomBytes(32).toString('base64');

  const answer = async (name: string, type = 'A'): Promise<string[]> =>
    (await dig(bind.port, [name, type, '+norec'])).answer.map((l) => l.split(' ').slice(3).join(' ')).sort();

  before(async () => {
    env = await startEnv();
    bind = await startBind({
      zones: [bindZone('example.test')],
      tsigKey: { name: KEY_NAME, algorithm: 'hmac-sha256', secret },
      extraOptions: `allow-update { key "${KEY_NAME}"; };`,
    });
    await createSecret(env.client, 'bind', {
      Server: `127.0.0.1:${bind.port}`,
      TSIGKeyName: KEY_NAME,
      TSIGSecret: secret,
      TSIGSecretAlgorithm: 'hmac-sha256',
      Zone: 'example.test.',
    });
    await createSecret(env.client, 'bind-lower', { server: `127.0.0.1:${bind.port}`, tsigKeyName: KEY_NAME, tsigSecret: secret, zone: 'example.test' });
    await createSecret(env.client, 'bind-nokey', { Server: `127.0.0.1:${bind.port}`, TSIGKeyName: KEY_NAME, Zone: 'example.test' });
    controller = startController(env, {
      backends: backendTypes(['rfc2136'], { aws: { region: 'us-east-1', endpointUrl: '', retries: 0 }, rfc2136TimeoutMs: 3000 }),
    });
  });

  after(async () => {
    await controller?.stop();
    await bind?.stop();
    await env?.stop();
  });

  test('create and update: signed updates, zone from the Secret in status', async () => {
    await create(env.client, dnsRecord('api', { type: 'rfc2136', name: 'api.example.test', secretRef: { name: 'bind' }, values: ['192.0.2.1', '192.0.2.2'] }));
    const rec = await settled(env.client, 'api', 'Create', 'Succeeded');
    assert.equal(rec.status?.zone, 'example.test');
    assert.deepEqual(await answer('api.example.test'), ['A 192.0.2.1', 'A 192.0.2.2']);
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } }, spec: { values: ['192.0.2.3'] } });
    await settled(env.client, 'api', 'Reconcile', 'Succeeded');
    assert.deepEqual(await answer('api.example.test'), ['A 192.0.2.3']);
  });

  test('lower-case key naming; TXT split at 255 bytes', async () => {
    await create(
      env.client,
      dnsRecord('txt', {
        type: 'rfc2136',
        name: '_acme-challenge.example.test',
        recordType: 'TXT',
        values: ['x'.repeat(256)],
        secretRef: { name: 'bind-lower', namespace: NS },
      }),
    );
    await settled(env.client, 'txt', 'Create', 'Succeeded');
    assert.deepEqual(await answer('_acme-challenge.example.test', 'TXT'), [`TXT "${'x'.repeat(255)}" "x"`]);
  });

  test('a Secret without TSIGSecret: the key and the Secret are named', async () => {
    await create(env.client, dnsRecord('nokey', { type: 'rfc2136', name: 'nokey.example.test', secretRef: { name: 'bind-nokey' } }));
    const rec = await settled(env.client, 'nokey', 'Create', 'Error');
    assert.deepEqual(rec.status?.lastError?.codes, [ERR_CONFIGURATION_PROBLEM]);
    assert.match(rec.status?.lastError?.description ?? '', new RegExp(`secret ${NS}/bind-nokey has no key "TSIGSecret" or "tsigSecret"`));
  });

  test('delete removes the record set', async () => {
    await remove(env.client, 'api');
    await remove(env.client, 'txt');
    for (const n of ['api', 'txt']) await waitFor(`${n} gone`, async () => ((await get(env.client, n)) === undefined ? true : undefined));
    assert.deepEqual(await answer('api.example.test'), []);
    assert.deepEqual(await answer('_acme-challenge.example.test', 'TXT'), []);
  });
});
