/**
 * kill -9 at random moments must never lose an acknowledged change nor leave a zone file that
 * does not load. A writer child applies batches and prints `ack <n>`; we kill it, reopen the
 * store and check every zone file and every acknowledged batch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseZone } from '../../src/dns/master-file.ts';
import { silentLogger } from '../../src/log.ts';
import { ZoneStore } from '../../src/provider/embedded/zone-store.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const WRITER = join(REPO, 'test/support/embedded-crash-writer.ts');
const ZONES = ['example.org', 'b.test'];
const ROUNDS = 12;
const READY_TIMEOUT_MS = 15_000;
const MAX_KILL_DELAY_MS = 400;

interface Round {
  acked: number[];
  exitedEarly: string | undefined;
}

/** Starts the writer, waits for its first ack, lets it run a random while and SIGKILLs it. */
async function runAndKill(dataDir: string, delayMs: number): Promise<Round> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dataDir, ...ZONES], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  const acked: number[] = [];
  let stderr = '';
  let buffered = '';
  let exitedEarly: string | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let firstAck!: () => void;
  const gotAck = new Promise<void>((resolve) => {
    firstAck = resolve;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^ack (\d+)$/.exec(line);
      if (m !== null) {
        acked.push(Number(m[1]));
        firstAck();
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  void exited.then(() => {
    if (child.signalCode !== 'SIGKILL') exitedEarly = `writer exited with ${child.exitCode ?? child.signalCode}: ${stderr}`;
    firstAck();
  });
  const timer = setTimeout(() => firstAck(), READY_TIMEOUT_MS);
  await gotAck;
  clearTimeout(timer);
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.kill('SIGKILL');
  await exited;
  // Whatever reached the pipe before the kill was acknowledged.
  return { acked, exitedEarly };
}

test('kill -9 never loses an acknowledged change or corrupts a zone', { timeout: 90_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'hostwarden-crash-'));
  try {
    const allAcked: number[] = [];
    let lastSerials = new Map<string, number>();
    let interruptedWrites = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { acked, exitedEarly } = await runAndKill(dataDir, Math.floor(Math.random() * MAX_KILL_DELAY_MS));
      assert.equal(exitedEarly, undefined);
      assert.ok(acked.length > 0, `round ${round}: the writer acknowledged nothing`);
      allAcked.push(...acked);

      // Every file parses as it is, before the store gets a chance to tidy anything.
      for (const zone of ZONES) parseZone(await readFile(join(dataDir, `${zone}.zone`), 'utf8'), zone, `${zone}.zone`);

      if ((await readdir(dataDir)).some((name) => name.includes('.tmp-'))) interruptedWrites++;
      const store = new ZoneStore({ dataDir, zones: ZONES, logger: silentLogger() });
      await store.open();
      const serials = new Map<string, number>();
      for (const zone of ZONES) {
        const content = store.content(zone);
        const names = new Set(content.rrsets.map((s) => s.name));
        for (const n of allAcked) assert.ok(names.has(`r${n}.${zone}`), `round ${round}: acknowledged r${n}.${zone} is missing`);
        // Batches are atomic per zone: counter n comes with r<n> and without r<n+1>.
        const counter = Number(content.rrsets.find((s) => s.name === `counter.${zone}`)?.rdata[0]?.replace('n=', ''));
        assert.ok(counter >= Math.max(...allAcked), `round ${round}: counter ${counter} behind last ack in ${zone}`);
        assert.ok(names.has(`r${counter}.${zone}`) && !names.has(`r${counter + 1}.${zone}`), `round ${round}: ${zone} holds part of a batch`);
        assert.ok(content.rrsets.find((s) => s.name === `blob.${zone}`)?.rdata[0]?.startsWith(`${counter}:`), `round ${round}: blob out of step in ${zone}`);
        serials.set(zone, content.soa.serial);
        assert.ok(content.soa.serial > (lastSerials.get(zone) ?? 0), `round ${round}: serial of ${zone} did not increase`);
      }
      lastSerials = serials;
      await store.close();
      assert.deepEqual((await readdir(dataDir)).sort(), ZONES.map((z) => `${z}.zone`).sort(), 'temporary files left after open');
    }
    t.diagnostic(`${allAcked.length} batches acknowledged; ${interruptedWrites} of ${ROUNDS} kills landed inside a write`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
