/**
 * NAPTR through the google provider and the official SDK to the Cloud DNS emulator (Cloud DNS has
 * NAPTR but no DNAME: that endpoint is skipped with a warning). Runs in a child process that
 * trusts the emulator's certificate, as google.test.ts explains.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { OAuth2Client } from 'google-auth-library';
import { createLogger } from '../../src/log.ts';
import { SdkGoogleDnsApi } from '../../src/provider/google/client.ts';
import { GoogleProvider } from '../../src/provider/google/google.ts';
import { CloudDnsEmulator } from '../support/google/cloud-dns-emulator.ts';
import { suiteTrustingEmulator } from '../support/google/child-suite.ts';
import { NAPTR_TARGETS, OWNER, desiredFor, find, scenario } from '../support/naptr-dname-scenario.ts';
import { loadSelfSignedCert } from '../support/tls.ts';

const PROJECT = 'hw-test-project';
const TOKEN = 'static-test-token';

await suiteTrustingEmulator({
  name: 'google provider: NAPTR and DNAME against the Cloud DNS emulator (in a child process trusting its certificate)',
  envVar: 'HOSTWARDEN_TEST_GOOGLE_NAPTR_TLS_DIR',
  file: fileURLToPath(import.meta.url),
  timeoutMs: 90_000,
  suite: childSuite,
});

function childSuite(dir: string): void {
  describe('google provider: NAPTR stored in Cloud DNS presentation form; DNAME skipped', () => {
    let emu: CloudDnsEmulator;
    before(async () => {
      emu = await CloudDnsEmulator.start({ project: PROJECT, cert: await loadSelfSignedCert(dir), token: TOKEN });
      emu.addZone('example-org', 'example.org', 'public');
    });
    after(() => emu?.stop());

    test('NAPTR and the A record sync and read back; DNAME is skipped with a warning naming it', async () => {
      const lines: string[] = [];
      const stream = new PassThrough();
      stream.on('data', (c: Buffer) =>
        lines.push(
          ...c
            .toString('utf8')
            .split('\n')
            .filter((l) => l !== ''),
        ),
      );
      const authClient = new OAuth2Client();
      authClient.setCredentials({ access_token: TOKEN, expiry_date: Date.now() + 3_600_000 });
      const api = new SdkGoogleDnsApi({ project: PROJECT, keyFile: '', apiEndpoint: emu.endpoint, authClient });
      const provider = new GoogleProvider({
        api,
        logger: createLogger('warn', 'json', stream),
        zoneVisibility: '',
        batchChangeSize: 1000,
        batchChangeIntervalMs: 0,
        sleep: () => Promise.resolve(),
      });
      await provider.records();
      const s = scenario(provider, 'example.org');
      const changes = await s.sync(desiredFor('example.org'));
      assert.deepEqual(changes?.create.map((e) => `${e.dnsName} ${e.recordType}`).sort(), ['_sip._udp.example.org NAPTR', 'www.example.org A']);
      assert.deepEqual([...(emu.get('example-org', '_sip._udp.example.org.', 'NAPTR')?.rrdatas ?? [])].sort(), [...NAPTR_TARGETS].sort());
      assert.ok(emu.get('example-org', 'naptr-_sip._udp.example.org.', 'TXT') !== undefined);
      assert.equal(find(await s.registry.records(), '_sip._udp.example.org', 'NAPTR')?.labels['owner'], OWNER);
      assert.equal(await s.sync(desiredFor('example.org')), undefined, 'a second sync changes nothing');
      const warned = lines.map((l) => JSON.parse(l) as { msg: string; record?: string }).find((w) => w.record === 'old.example.org DNAME');
      assert.match(warned?.msg ?? '', /Cloud DNS has no DNAME record type/);
    });
  });
}
