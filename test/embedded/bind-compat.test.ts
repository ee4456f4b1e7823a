/**
 * The zone files the embedded provider writes must load in BIND9 unchanged, and what BIND writes
 * back (named-compilezone) must parse to the same content. Skipped when bind9-utils is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseZone } from '../../src/dns/master-file.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { EmbeddedProvider } from '../../src/provider/embedded/embedded.ts';
import { emptyChanges } from '../../src/plan/changes.ts';

function bindTool(name: string): boolean {
  return spawnSync(name, ['-v'], { encoding: 'utf8', timeout: 10_000 }).error === undefined;
}

test('zone files written by the embedded provider load in BIND9', async (t) => {
  if (!bindTool('named-checkzone') || !bindTool('named-compilezone')) {
    t.skip('named-checkzone/named-compilezone not installed (apt install bind9-utils)');
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'hostwarden-bind-'));
  const zones = ['example.org', 'sub.example.org'];
  const provider = await EmbeddedProvider.open({ dataDir: dir, zones, logger: silentLogger(), nameserverAddresses: ['192.0.2.53', '2001:db8::53'] });
  try {
    const changes = emptyChanges();
    changes.create.push(
      newEndpoint({ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1', '192.0.2.2'], recordTTL: 60 }),
      newEndpoint({ dnsName: 'www.example.org', recordType: 'AAAA', targets: ['2001:db8::1'] }),
      newEndpoint({
        dnsName: 'a-www.example.org',
        recordType: 'TXT',
        targets: ['"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"'],
      }),
      newEndpoint({ dnsName: 'dkim._domainkey.example.org', recordType: 'TXT', targets: [`v=DKIM1; k=rsa; p=${'Q'.repeat(400)}`, 'quote " backslash \\ é'] }),
      newEndpoint({ dnsName: 'app.example.org', recordType: 'CNAME', targets: ['www.example.org'] }),
      newEndpoint({ dnsName: 'example.org', recordType: 'MX', targets: ['10 mail.example.org'] }),
      newEndpoint({ dnsName: 'mail.example.org', recordType: 'A', targets: ['192.0.2.25'] }),
      newEndpoint({ dnsName: '_https._tcp.example.org', recordType: 'SRV', targets: ['1 10 443 www.example.org'] }),
      newEndpoint({ dnsName: 'example.org', recordType: 'CAA', targets: ['0 issue "letsencrypt.org"'] }),
      newEndpoint({ dnsName: 'ptr.example.org', recordType: 'PTR', targets: ['www.example.org'] }),
      newEndpoint({ dnsName: 'deleg.example.org', recordType: 'NS', targets: ['ns1.example.net'] }),
      newEndpoint({ dnsName: '*.apps.sub.example.org', recordType: 'CNAME', targets: ['lb.example.net'] }),
    );
    await provider.applyChanges(changes);
    for (const zone of zones) {
      const file = provider.store.filePath(zone);
      const check = spawnSync('named-checkzone', ['-k', 'fail', zone, file], { encoding: 'utf8', timeout: 10_000 });
      assert.equal(check.status, 0, `${zone}: ${check.stdout}${check.stderr}`);
      assert.match(check.stdout, new RegExp(`loaded serial ${provider.store.content(zone).soa.serial}`));
      const compiled = spawnSync('named-compilezone', ['-q', '-o', '-', zone, file], { encoding: 'utf8', timeout: 10_000 });
      assert.equal(compiled.status, 0, compiled.stderr);
      assert.deepEqual(parseZone(compiled.stdout, zone, 'named-compilezone output'), provider.store.content(zone));
    }
  } finally {
    await provider.close();
    await rm(dir, { recursive: true, force: true });
  }
});
