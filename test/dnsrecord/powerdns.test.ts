/** The powerdns type against a real PowerDNS: zone found through the API, records answered over DNS, deletion. */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backendTypes } from '../../src/dnsrecord/backend-types.ts';
import { OPERATION_ANNOTATION } from '../../src/dnsrecord/types.ts';
import type { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import { dig } from '../support/dig.ts';
import { pdnsUnavailable, startPdns } from '../support/pdns.ts';
import type { PdnsServer } from '../support/pdns.ts';
import { create, createSecret, dnsRecord, get, patch, remove, settled, startController, startEnv, waitFor } from './harness.ts';
import type { Env } from './harness.ts';

const skip = (await pdnsUnavailable()) ?? false;

describe('dnsrecord-controller, powerdns type', { skip }, () => {
  let env: Env;
  let pdns: PdnsServer;
  let controller: DNSRecordController;

  const answer = async (name: string, type = 'A'): Promise<string[]> =>
    (await dig(pdns.dnsPort, [name, type, '+norec'])).answer.map((l) => l.split(' ').slice(3).join(' ')).sort();

  before(async () => {
    env = await startEnv();
    pdns = await startPdns();
    await pdns.createZone('example.test');
    await pdns.createZone('sub.example.test');
    await createSecret(env.client, 'pdns', { server: pdns.apiUrl, apiKey: pdns.apiKey });
    await createSecret(env.client, 'pdns-env', { PDNS_SERVER: pdns.apiUrl, PDNS_API_KEY: pdns.apiKey });
    controller = startController(env, {
      backends: backendTypes(['powerdns'], { aws: { region: 'us-east-1', endpointUrl: '', retries: 0 }, rfc2136TimeoutMs: 2000 }),
    });
  });

  after(async () => {
    await controller?.stop();
    await pdns?.stop();
    await env?.stop();
  });

  test('create, update and delete; the longest zone; both key namings', async () => {
    await create(env.client, dnsRecord('api', { type: 'powerdns', name: 'api.sub.example.test', secretRef: { name: 'pdns' }, values: ['192.0.2.1'] }));
    await create(
      env.client,
      dnsRecord('txt', { type: 'powerdns', name: 'txt.example.test', recordType: 'TXT', values: ['hello world'], secretRef: { name: 'pdns-env' } }),
    );
    const rec = await settled(env.client, 'api', 'Create', 'Succeeded');
    assert.equal(rec.status?.zone, 'sub.example.test.');
    await settled(env.client, 'txt', 'Create', 'Succeeded');
    assert.deepEqual(await answer('api.sub.example.test'), ['A 192.0.2.1']);
    assert.deepEqual(await answer('txt.example.test', 'TXT'), ['TXT "hello world"']);
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } }, spec: { values: ['192.0.2.2'] } });
    await settled(env.client, 'api', 'Reconcile', 'Succeeded');
    assert.deepEqual(await answer('api.sub.example.test'), ['A 192.0.2.2']);
    await remove(env.client, 'api');
    await waitFor('api gone', async () => ((await get(env.client, 'api')) === undefined ? true : undefined));
    assert.deepEqual(await answer('api.sub.example.test'), []);
  });
});
