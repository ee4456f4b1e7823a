/**
 * The google-clouddns type against the Cloud DNS emulator over HTTPS. As in
 * test/providers/google.test.ts, the SDK cannot trust a custom CA per client and Node reads
 * NODE_EXTRA_CA_CERTS only at start-up, so this file re-runs itself in a child process that trusts
 * the emulator's throw-away certificate. The Secret's `serviceaccount.json` is an
 * `external_account` configuration whose token exchange the emulator answers, so the whole login
 * path from the Secret is exercised (a service account key would need Google's token endpoint).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { backendTypes } from '../../src/dnsrecord/backend-types.ts';
import type { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import { ERR_CONFIGURATION_PROBLEM, OPERATION_ANNOTATION } from '../../src/dnsrecord/types.ts';
import { CloudDnsEmulator } from '../support/google/cloud-dns-emulator.ts';
import { suiteTrustingEmulator } from '../support/google/child-suite.ts';
import { loadSelfSignedCert } from '../support/tls.ts';
import { NS, create, createSecret, dnsRecord, get, patch, remove, settled, startController, startEnv, waitFor } from './harness.ts';
import type { Env } from './harness.ts';

const CHILD_ENV = 'HOSTWARDEN_TEST_DNSRECORD_GOOGLE_TLS_DIR';
const PROJECT = 'hw-dnsrecord-project';
await suiteTrustingEmulator({
  name: 'dnsrecord-controller, google-clouddns type (in a child process trusting the emulator certificate)',
  envVar: CHILD_ENV,
  file: fileURLToPath(import.meta.url),
  timeoutMs: 80_000,
  suite: childSuite,
});

function childSuite(dir: string): void {
  describe('dnsrecord-controller, google-clouddns type', () => {
    let env: Env;
    let emu: CloudDnsEmulator;
    let work: string;
    let controller: DNSRecordController;

    before(async () => {
      env = await startEnv();
      emu = await CloudDnsEmulator.start({ project: PROJECT, cert: await loadSelfSignedCert(dir), pageSize: 2 });
      emu.addZone('example-org', 'example.org');
      emu.addZone('dev-example-org', 'dev.example.org');
      emu.addZone('badexample-org', 'badexample.org');
      work = await mkdtemp(join(tmpdir(), 'hw-dnsrecord-google-'));
      await writeFile(join(work, 'subject-token'), 'test-subject-token');
      const keyFile = {
        type: 'external_account',
        audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/pool/providers/test',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        token_url: emu.tokenUrl,
        credential_source: { file: join(work, 'subject-token') },
      };
      await createSecret(env.client, 'gcp', { 'serviceaccount.json': JSON.stringify(keyFile), projectID: PROJECT });
      await createSecret(env.client, 'half', { projectID: PROJECT });
      controller = startController(env, {
        backends: backendTypes(['google-clouddns'], {
          aws: { region: 'us-east-1', endpointUrl: '', retries: 0 },
          rfc2136TimeoutMs: 2000,
          google: { apiEndpoint: emu.endpoint },
        }),
      });
    });

    after(async () => {
      await controller?.stop();
      await emu?.stop();
      await env?.stop();
      if (work !== undefined) await rm(work, { recursive: true, force: true });
    });

    test('create: the longest zone on a label boundary, status.zone is the managed zone name, the login exchanged the subject token', async () => {
      await create(env.client, dnsRecord('api', { type: 'google-clouddns', name: 'api.dev.example.org', secretRef: { name: 'gcp' }, values: ['192.0.2.1'] }));
      const rec = await settled(env.client, 'api', 'Create', 'Succeeded');
      assert.equal(rec.status?.zone, 'dev-example-org');
      assert.deepEqual(emu.get('dev-example-org', 'api.dev.example.org.', 'A'), { name: 'api.dev.example.org.', type: 'A', ttl: 120, rrdatas: ['192.0.2.1'] });
      assert.equal(emu.get('example-org', 'api.dev.example.org.', 'A'), undefined);
      assert.ok(emu.calls.tokens >= 1);
      await create(
        env.client,
        dnsRecord('bad', { type: 'google-clouddns', name: 'www.badexample.org', recordType: 'CNAME', values: ['lb.example.net'], secretRef: { name: 'gcp' } }),
      );
      assert.equal((await settled(env.client, 'bad', 'Create', 'Succeeded')).status?.zone, 'badexample-org');
      assert.deepEqual(emu.get('badexample-org', 'www.badexample.org.', 'CNAME')?.rrdatas, ['lb.example.net.']);
    });

    test('the second reconcile lists no zones; a value change deletes the exact old set and adds the new one', async () => {
      const lists = emu.calls.zoneLists;
      await patch(env.client, 'api', {
        metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } },
        spec: { values: ['192.0.2.2', '192.0.2.3'], ttl: 300 },
      });
      await settled(env.client, 'api', 'Reconcile', 'Succeeded');
      assert.deepEqual(emu.get('dev-example-org', 'api.dev.example.org.', 'A'), {
        name: 'api.dev.example.org.',
        type: 'A',
        ttl: 300,
        rrdatas: ['192.0.2.2', '192.0.2.3'],
      });
      assert.equal(emu.calls.zoneLists, lists);
      const last = emu.changeLog.at(-1);
      assert.deepEqual(
        last?.deletions.map((d) => d.rrdatas),
        [['192.0.2.1']],
      );
    });

    test('TXT values are quoted once and split at 255 bytes', async () => {
      const long = 'v='.padEnd(300, 'x');
      await create(
        env.client,
        dnsRecord('txt', { type: 'google-clouddns', name: '_acme.example.org', recordType: 'TXT', values: [long, 'say "hi"'], secretRef: { name: 'gcp' } }),
      );
      await settled(env.client, 'txt', 'Create', 'Succeeded');
      assert.deepEqual(emu.get('example-org', '_acme.example.org.', 'TXT')?.rrdatas, [`"${long.slice(0, 255)}" "${long.slice(255)}"`, '"say \\"hi\\""']);
    });

    test('a missing Secret key is named, with the Secret, under ERR_CONFIGURATION_PROBLEM', async () => {
      await create(env.client, dnsRecord('half', { type: 'google-clouddns', name: 'half.example.org', secretRef: { name: 'half' } }));
      const rec = await settled(env.client, 'half', 'Create', 'Error');
      assert.deepEqual(rec.status?.lastError?.codes, [ERR_CONFIGURATION_PROBLEM]);
      assert.match(rec.status?.lastError?.description ?? '', new RegExp(`secret ${NS}/half has no key "serviceaccount.json"`));
    });

    test('a throttled change is retried by the client and the record is written', async () => {
      emu.throttle(1, 'changes');
      const throttled = emu.calls.throttled;
      await create(env.client, dnsRecord('slow', { type: 'google-clouddns', name: 'slow.example.org', secretRef: { name: 'gcp' } }));
      await settled(env.client, 'slow', 'Create', 'Succeeded');
      assert.equal(emu.calls.throttled - throttled, 1);
      assert.deepEqual(emu.get('example-org', 'slow.example.org.', 'A')?.rrdatas, ['192.0.2.10']);
    });

    test('delete removes the record set, also one changed by someone else since, then the finalizer', async () => {
      emu.put('example-org', { name: '_acme.example.org.', type: 'TXT', ttl: 60, rrdatas: ['"changed by hand"'] });
      for (const name of ['api', 'txt', 'bad', 'half', 'slow']) await remove(env.client, name);
      for (const name of ['api', 'txt', 'bad', 'half', 'slow'])
        await waitFor(`${name} gone`, async () => ((await get(env.client, name)) === undefined ? true : undefined));
      assert.equal(emu.get('dev-example-org', 'api.dev.example.org.', 'A'), undefined);
      assert.equal(emu.get('example-org', '_acme.example.org.', 'TXT'), undefined);
      assert.equal(emu.get('badexample-org', 'www.badexample.org.', 'CNAME'), undefined);
    });
  });
}
