/**
 * Real BIND 9 as a secondary of a replica set (issue 26): three `hostwarden run` replicas of
 * example.org on one API server, and BIND transferring from a FOLLOWER, whose IXFR journal holds
 * the changes it applied from the leader's transfers (not the leader's own commits). Every replica
 * NOTIFYs BIND after each change it applies; BIND accepts NOTIFY from 127.0.0.1 and transfers from
 * its one primary, the follower. Steps, each ending with BIND holding the same zone (dig AXFR) and
 * SOA serial as every running replica, and answering every Service name as the cluster's objects say:
 * 1. first transfer: a full one (AXFR);
 * 2. small changes: BIND's log shows only incremental transfers, and `dig IXFR=<BIND's old serial>`
 *    against the follower answers with the differences (RFC 1995 incremental form);
 * 3. BIND stopped while more changes are made than the journal keeps (3), then started: it asks
 *    IXFR from its old serial and gets the whole zone (BIND logs "nonincremental"), as `dig IXFR`
 *    shows too;
 * 4. kill -9 of the leader: after a new one takes over (BIND's follower or the other one), the next
 *    change reaches BIND, still by IXFR.
 */
import { after, before, describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { namedAvailable } from '../support/bind.ts';
import { BindSecondary, transfers } from '../support/bind-secondary.ts';
import { digAvailable } from '../support/dig.ts';
import { DnsClient, HA_ZONE, HaSet, LEASE_DURATION_MS, freePort, tailOf, until } from '../support/ha-set.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

const run = promisify(execFile);
const skip = (await namedAvailable()) && (await digAvailable()) ? false : 'named or dig is not installed (apt-get install bind9 bind9-dnsutils)';
const JOURNAL = 3;
/** Bound of one change reaching every running replica, and then BIND. */
const CHANGE_MS = 10_000;

function serviceName(host: string): string {
  return host.split('.')[0] ?? '';
}

/** dig's records of a transfer, whitespace normalised and sorted (the closing SOA included). */
async function transfer(port: number, type: string): Promise<{ records: string[]; raw: string }> {
  const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(port), '+time=2', '+tries=1', '+nocookie', HA_ZONE, type], { timeout: 15_000 });
  const records = stdout
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith(';'))
    .map((l) => l.trim().split(/\s+/).join(' '));
  return { records, raw: stdout };
}

/** One diagnostic per line: TAP shows a multi-line diagnostic as one line with escaped newlines. */
function diagnostics(t: TestContext, header: string, lines: readonly string[]): void {
  t.diagnostic(header);
  for (const l of lines) t.diagnostic(`  ${l}`);
}

function soaSerials(records: readonly string[]): number[] {
  return records.filter((r) => r.split(' ')[3] === 'SOA').map((r) => Number(r.split(' ')[6]));
}

describe('BIND 9 secondary of a replica set: IXFR from a follower, AXFR fallback, a change of leader', { skip }, () => {
  let api: TestApiServer;
  let root: string;
  let set: HaSet | undefined;
  let bind: BindSecondary | undefined;
  let client: DnsClient | undefined;
  /** The temp directory (every process's log, BIND's xfer.log) stays when the test fails. */
  let passed = false;
  /** The Services made so far: a live one's name must answer its address, a deleted one's NXDOMAIN. */
  const names = new Map<string, { address: string; live: boolean }>();

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    root = await mkdtemp(join(tmpdir(), 'hw-ha-bind-'));
  });
  after(async () => {
    client?.close();
    await bind?.stop();
    await set?.stop();
    await api.stop();
    if (passed) await rm(root, { recursive: true, force: true });
  });

  function running(): number[] {
    return Array.from({ length: set!.size }, (_, i) => i).filter((i) => set!.replica(i)?.alive() === true);
  }

  /** Whether replica `port` answers every Service name as the objects say (UDP, one query each). */
  async function answersAll(port: number): Promise<boolean> {
    const checks = await Promise.all(
      [...names].map(async ([name, want]) => {
        const a = await client!.query(port, name, 'A', 1000);
        return want.live ? a?.rcode === 'NOERROR' && a.addresses.join() === want.address : a?.rcode === 'NXDOMAIN';
      }),
    );
    return checks.every(Boolean);
  }

  /** Waits until every running replica answers as the objects say, with one SOA serial; returns it. */
  async function replicasSettled(label: string): Promise<number> {
    return until(
      `${label}: every running replica answers the Services and agrees on the serial`,
      async () => {
        const ports = running().map((i) => set!.replica(i)!.dnsPort);
        const ok = await Promise.all(ports.map((p) => answersAll(p)));
        if (!ok.every(Boolean)) return undefined;
        const serials = await Promise.all(running().map((i) => set!.soaSerial(i, client)));
        return serials.every((s) => s !== undefined && s === serials[0]) ? serials[0] : undefined;
      },
      CHANGE_MS,
      50,
    );
  }

  function create(host: string, address: string): void {
    names.set(host, { address, live: true });
    api.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: serviceName(host), namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': host } },
      spec: { type: 'LoadBalancer', externalIPs: [address] },
    });
  }

  function remove(host: string): void {
    const n = names.get(host);
    if (n !== undefined) n.live = false;
    api.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: serviceName(host) });
  }

  /**
   * BIND serves the replicas' serial, its AXFR equals every running replica's record for record, and
   * it answers every Service name as the objects say. Retried (bounded) while a serial moves on.
   */
  async function bindMatches(t: TestContext, label: string): Promise<number> {
    const serial = await replicasSettled(label);
    await bind!.serving(serial, CHANGE_MS);
    let why = '';
    const deadline = Date.now() + CHANGE_MS;
    while (Date.now() < deadline) {
      const ours = await transfer(bind!.port, 'AXFR');
      const theirs = await Promise.all(running().map((i) => transfer(set!.replica(i)!.dnsPort, 'AXFR')));
      const differ = theirs.flatMap((z, n) => (JSON.stringify([...z.records].sort()) === JSON.stringify([...ours.records].sort()) ? [] : [n]));
      const good = differ.length === 0 && (await answersAll(bind!.port));
      if (good) {
        const serials = soaSerials(ours.records);
        t.diagnostic(`${label}: BIND and replicas ${running().join(',')} hold the same ${ours.records.length - 1} records, serial ${serials[0]}`);
        return serials[0] ?? 0;
      }
      why = `BIND's AXFR:\n${ours.raw}\ndiffers from running replicas' (${differ.join(',')}):\n${theirs.map((z) => z.raw).join('\n')}`;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${label}: ${why}`);
  }

  /** Makes one change and waits for every running replica to answer it; returns the new serial. */
  async function change(label: string, make: () => void): Promise<number> {
    make();
    return replicasSettled(label);
  }

  test('first AXFR; IXFR after small changes; AXFR when the journal is too short; kill -9 of the leader', { timeout: 90_000 }, async (t) => {
    const began = Date.now();
    const bindPort = await freePort();
    set = await HaSet.start({
      api,
      root,
      extraArgs: ['--dns-allow-transfer', '127.0.0.1/32', '--dns-ixfr-journal-size', String(JOURNAL), '--dns-notify', `127.0.0.1:${bindPort}`],
    });
    const s = set;
    client = await DnsClient.open();
    try {
      await s.waitAllReady(30_000);
      const leader = await until(
        'a leader that published its address',
        () => (s.publishedPeer() === undefined ? undefined : s.leaderIndex()),
        LEASE_DURATION_MS * 3,
      );
      const follower = (leader + 1) % s.size;
      const primaryPort = s.replica(follower)!.dnsPort;
      t.diagnostic(`Ready after ${Date.now() - began} ms; leader replica ${leader}, BIND transfers from follower replica ${follower} (port ${primaryPort})`);
      create(`a.${HA_ZONE}`, '10.2.0.1');
      create(`b.${HA_ZONE}`, '10.2.0.2');
      await replicasSettled('initial Services');

      // 1. First transfer: in full.
      const dir = join(root, 'bind');
      await mkdir(dir);
      bind = new BindSecondary({ dir, port: bindPort, origin: HA_ZONE, primary: { host: '127.0.0.1', port: primaryPort } });
      await bind.start();
      const first = await bindMatches(t, '1. first transfer');
      const firstLog = transfers(await bind.log(), 0);
      diagnostics(t, "BIND's transfers in step 1:", firstLog);
      assert.ok(
        firstLog.some((l) => l.includes('Transfer completed')),
        firstLog.join('\n'),
      );
      assert.ok(
        firstLog.some((l) => l.includes('requesting AXFR of initial version')),
        firstLog.join('\n'),
      );
      assert.ok(!firstLog.some((l) => l.includes('got incremental response')), firstLog.join('\n'));

      // 2. Small changes, fewer than the journal keeps: BIND follows by IXFR only.
      let mark = (await bind.log()).length;
      await change('2. create c', () => create(`c.${HA_ZONE}`, '10.2.0.3'));
      await bindMatches(t, '2. after creating c');
      await change('2. delete a', () => remove(`a.${HA_ZONE}`));
      const second = await bindMatches(t, '2. after deleting a');
      const incremental = transfers(await bind.log(), mark);
      diagnostics(t, "BIND's transfers in step 2:", incremental);
      assert.ok(incremental.filter((l) => l.includes('got incremental response')).length >= 1, incremental.join('\n'));
      assert.ok(!incremental.some((l) => l.includes('got nonincremental response')), incremental.join('\n'));
      // The follower answers IXFR from BIND's first serial with the differences: current SOA, then
      // (old SOA, removed, new SOA, added) per change it applied, current SOA.
      const ixfr = await transfer(primaryPort, `IXFR=${first}`);
      const soas = soaSerials(ixfr.records);
      assert.equal(soas[0], second, ixfr.raw);
      assert.equal(soas[1], first, ixfr.raw);
      assert.equal(soas[soas.length - 1], second, ixfr.raw);
      assert.ok(soas.length >= 4 && soas.length % 2 === 0, `incremental form (${soas.length} SOA records):\n${ixfr.raw}`);
      assert.ok(
        ixfr.records.some((r) => /^a\.example\.org\. \d+ IN A 10\.2\.0\.1$/.test(r)),
        `the deleted a.${HA_ZONE} is among the differences:\n${ixfr.raw}`,
      );
      assert.ok(
        ixfr.records.some((r) => /^c\.example\.org\. \d+ IN A 10\.2\.0\.3$/.test(r)),
        `the created c.${HA_ZONE} is among the differences:\n${ixfr.raw}`,
      );
      assert.ok(!ixfr.records.some((r) => /^b\.example\.org\. \d+ IN A /.test(r)), `the unchanged b.${HA_ZONE} is not:\n${ixfr.raw}`);

      // 3. BIND misses more changes than the journal keeps: a full transfer when it comes back.
      await bind.stop();
      mark = (await bind.log()).length;
      for (let n = 0; n < JOURNAL + 2; n++) await change(`3. change ${n}`, () => create(`m${n}.${HA_ZONE}`, `10.3.0.${n}`));
      const full = await transfer(primaryPort, `IXFR=${second}`);
      assert.deepEqual(soaSerials(full.records).length, 2, `the journal no longer reaches serial ${second}: a full transfer\n${full.raw}`);
      await bind.start();
      await until('BIND answering again', async () => (await bind!.serial()) ?? undefined, 10_000, 50);
      await change('3. one more change, to NOTIFY BIND', () => remove(`b.${HA_ZONE}`));
      await bindMatches(t, '3. BIND back after missing changes');
      const fallback = transfers(await bind.log(), mark);
      diagnostics(t, "BIND's transfers in step 3:", fallback);
      assert.ok(
        fallback.some((l) => l.includes(`requesting IXFR for serial ${second}`)),
        fallback.join('\n'),
      );
      assert.ok(
        fallback.some((l) => l.includes('got nonincremental response')),
        fallback.join('\n'),
      );

      // 4. kill -9 of the leader: a follower takes over once the Lease expires, and BIND (still
      // transferring from the same follower, which may now be the leader) follows the next change.
      const old = s.leaderIndex() ?? leader;
      const killedAt = Date.now();
      await s.kill(old, 'SIGKILL');
      const next = await until(
        'a new leader that published its address',
        () => {
          const l = s.leaderIndex();
          return l !== undefined && l !== old && s.publishedPeer() === `127.0.0.1:${s.replica(l)!.dnsPort}` ? l : undefined;
        },
        LEASE_DURATION_MS + 8000,
        20,
      );
      t.diagnostic(
        `leader ${old} killed; replica ${next}${next === follower ? " (BIND's primary)" : ''} leads and published after ${Date.now() - killedAt} ms`,
      );
      mark = (await bind.log()).length;
      await change('4. create d after the takeover', () => create(`d.${HA_ZONE}`, '10.2.0.4'));
      await bindMatches(t, '4. after the change of leader');
      const afterTakeover = transfers(await bind.log(), mark);
      diagnostics(t, "BIND's transfers in step 4:", afterTakeover);
      // Whichever replica leads now, the follower's journal goes on across the change of leader.
      assert.ok(
        afterTakeover.some((l) => l.includes('got incremental response')),
        afterTakeover.join('\n'),
      );
      assert.ok(!afterTakeover.some((l) => l.includes('got nonincremental response')), afterTakeover.join('\n'));
      t.diagnostic(`total ${Date.now() - began} ms`);
    } catch (err) {
      diagnostics(t, "BIND's xfer.log:", (await bind?.log())?.split('\n') ?? []);
      for (const inc of s.history) {
        t.diagnostic(`process ${inc.id} (replica ${inc.index}) last log lines:`);
        for (const line of tailOf(inc.logs, 15).split('\n')) t.diagnostic(line);
      }
      t.diagnostic(`logs kept in ${root}`);
      throw err;
    }
    passed = true;
  });
});
