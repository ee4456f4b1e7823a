/**
 * Records of another owner in a BIND zone survive every sync of `hostwarden run --provider rfc2136`:
 * by default (zones read by AXFR) the registry sees their ownership TXT and leaves them alone; with
 * --no-rfc2136-axfr (external-dns's blind mode) creates carry prerequisites, so a taken name is
 * skipped with a warning while fresh names of the same sync are created. Checked with dig AXFR.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, test } from 'node:test';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { namedAvailable, startBind } from '../support/bind.ts';
import type { BindServer } from '../support/bind.ts';
import { bindZone, KEY_NAME } from '../support/bind-rfc2136.ts';
import { runCli } from '../support/cli.ts';
import type { CliResult } from '../support/cli.ts';
import { dig } from '../support/dig.ts';

const skip = !(await namedAvailable()) && 'named is not installed (apt-get install bind9 bind9-dnsutils)';

const ZONE = 'example.test';
const THEIRS = (resource: string): string => `heritage=external-dns,external-dns/owner=them,external-dns/resource=${resource}`;
/** The records another external-dns instance ("them") wrote, and one nobody owns. */
const FOREIGN_NAMES = ['app', 'cname-app', 'web', 'a-web', 'note'].map((n) => `${n}.${ZONE}.`);

function zoneWithForeignRecords(): ZoneContent {
  const zone = bindZone(ZONE);
  zone.rrsets.push(
    { name: `app.${ZONE}`, type: 'CNAME', ttl: 300, rdata: ['their-lb.example.net'] },
    { name: `cname-app.${ZONE}`, type: 'TXT', ttl: 300, rdata: [THEIRS('service/other/app')] },
    { name: `web.${ZONE}`, type: 'A', ttl: 300, rdata: ['203.0.113.1'] },
    { name: `a-web.${ZONE}`, type: 'TXT', ttl: 300, rdata: [THEIRS('service/other/web')] },
    { name: `note.${ZONE}`, type: 'TXT', ttl: 300, rdata: ['unowned note'] },
  );
  return zone;
}

/** Our DNSEndpoint asks for the taken names and for `fresh` names. */
function desired(fresh: string[]): string {
  const lines = ['apiVersion: externaldns.k8s.io/v1alpha1', 'kind: DNSEndpoint', 'metadata:', '  name: mine', '  namespace: default', 'spec:', '  endpoints:'];
  const add = (name: string, type: string, target: string): void => {
    lines.push(`    - dnsName: ${name}.${ZONE}`, `      recordType: ${type}`, `      targets: ["${target}"]`);
  };
  add('app', 'CNAME', 'our-lb.example.net');
  add('web', 'A', '192.0.2.10');
  add('note', 'TXT', 'our note');
  fresh.forEach((name, i) => add(name, 'A', `192.0.2.${20 + i}`));
  return `${lines.join('\n')}\n`;
}

describe('rfc2136: records of other owners in BIND are never changed', { skip }, () => {
  const secret = randomBytes(32).toString('base64');
  let bind: BindServer | undefined;
  let dir: string | undefined;

  beforeEach(async () => {
    bind = await startBind({
      zones: [zoneWithForeignRecords()],
      tsigKey: { name: KEY_NAME, algorithm: 'hmac-sha256', secret },
      extraOptions: `allow-update { key "${KEY_NAME}"; };`,
    });
    dir = await mkdtemp(join(tmpdir(), 'hw-rfc2136-owners-'));
  });
  afterEach(async () => {
    await bind?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  after(async () => {
    await bind?.stop();
  });

  const run = (extra: string[]): Promise<CliResult> =>
    runCli(
      [
        'run',
        '--once',
        '--provider',
        'rfc2136',
        ...['--manifests-dir', dir ?? '', '--domain-filter', ZONE, '--txt-owner-id', 'hw-test', '--metrics-address', '', '--log-format', 'json'],
        // TXT too, so the unowned TXT "note" is a name our desired TXT record competes for.
        ...['--managed-record-types', 'A', '--managed-record-types', 'CNAME', '--managed-record-types', 'TXT'],
        ...['--rfc2136-host', '127.0.0.1', '--rfc2136-port', String(bind?.port), '--rfc2136-zone', ZONE, '--rfc2136-tsig-keyname', KEY_NAME],
        ...extra,
      ],
      { env: { EXTERNAL_DNS_RFC2136_TSIG_SECRET: secret } },
    );

  /** The whole zone by signed AXFR, one normalised line per record, SOA left out (its serial moves). */
  const axfr = async (): Promise<string[]> => {
    const r = await dig(bind?.port ?? 0, ['-y', `hmac-sha256:${KEY_NAME}:${secret}`, ZONE, 'AXFR']);
    return r.raw
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith(';'))
      .map((l) => l.trim().split(/\s+/).join(' '))
      .filter((l) => !/ (SOA|TSIG) /.test(l))
      .sort();
  };
  const foreign = (lines: string[]): string[] => lines.filter((l) => FOREIGN_NAMES.includes(l.split(' ')[0] ?? ''));
  const has = (lines: string[], name: string, type: string): string[] => lines.filter((l) => l.startsWith(`${name}.${ZONE}. `) && l.includes(` IN ${type} `));

  test('default (AXFR on, no flag): the foreign CNAME, A and TXT records stay byte-identical; a fresh name is created with its ownership TXT', async () => {
    await writeFile(join(dir ?? '', 'mine.yaml'), desired(['fresh']));
    const before = await axfr();
    assert.equal(foreign(before).length, 5, before.join('\n'));
    assert.ok(before.includes(`a-web.${ZONE}. 300 IN TXT "${THEIRS('service/other/web')}"`), before.join('\n'));
    for (let i = 1; i <= 2; i++) {
      const r = await run([]);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /rfc2136-axfr is off|rfc2136: not creating/, 'the zone was read: the planner, not the guards, kept their records');
      const now = await axfr();
      assert.deepEqual(foreign(now), foreign(before), `sync ${i}: records of other owners unchanged`);
      assert.deepEqual(
        has(now, 'fresh', 'A').map((l) => l.split(' ').at(-1)),
        ['192.0.2.20'],
      );
      assert.match(has(now, 'a-fresh', 'TXT').join(''), /owner=hw-test/);
    }
  });

  test('--no-rfc2136-axfr (blind mode): taken names are skipped with one warning each, byte-identical; fresh names of the same sync are created; nothing is ever deleted', async () => {
    await writeFile(join(dir ?? '', 'mine.yaml'), desired(['fresh1', 'fresh2']));
    const before = await axfr();
    const first = await run(['--no-rfc2136-axfr']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /--rfc2136-axfr is off: no record is read, so records are only created/);
    const skipped = first.stderr.split('\n').filter((l) => l.includes('rfc2136: not creating'));
    for (const name of ['app', 'web', 'note']) {
      assert.equal(skipped.filter((l) => l.includes(`not creating ${name}.${ZONE} `)).length, 1, `one warning for ${name}:\n${skipped.join('\n')}`);
    }
    assert.equal(skipped.length, 3, skipped.join('\n'));

    const afterFirst = await axfr();
    assert.deepEqual(foreign(afterFirst), foreign(before), 'records of other owners unchanged');
    assert.deepEqual(has(afterFirst, 'app', 'TXT'), [], 'no TXT put beside their CNAME');
    assert.deepEqual(has(afterFirst, 'cname-app', 'TXT').length, 1, 'their ownership TXT gained no value');
    for (const [name, ip] of [
      ['fresh1', '192.0.2.20'],
      ['fresh2', '192.0.2.21'],
    ] as const) {
      assert.deepEqual(
        has(afterFirst, name, 'A').map((l) => l.split(' ').at(-1)),
        [ip],
      );
      assert.match(has(afterFirst, `a-${name}`, 'TXT').join(''), /owner=hw-test/);
    }

    // The next blind sync finds its own records in place (no change, no warning for them) and still skips the taken names.
    const second = await run(['--rfc2136-axfr=false']);
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /rfc2136 update applied/);
    assert.doesNotMatch(second.stderr, /not creating fresh/);
    assert.deepEqual(await axfr(), afterFirst);

    // Without a transfer nothing is read, so a record no longer desired is not deleted.
    await writeFile(join(dir ?? '', 'mine.yaml'), desired([]));
    const third = await run(['--no-rfc2136-axfr']);
    assert.equal(third.code, 0, third.stderr);
    assert.deepEqual(await axfr(), afterFirst);
  });
});
