/**
 * Queries to a set of three embedded replicas during a rolling restart (issue 26). The replicas run
 * against the test API server (test/support/ha-set.ts); a client sends A queries for names that
 * exist at a fixed rate, spread over the replicas it last saw Ready (it polls /readyz every 50 ms
 * and stops sending to a replica whose /readyz fails, as a Service does once the endpoint is
 * removed), first at steady state, then while each replica in turn gets SIGTERM, exits, restarts
 * on an empty data dir and becomes Ready. Services keep changing meanwhile (other names), as in a
 * live cluster. Prints lost answers (no answer within the timeout), wrong answers (NXDOMAIN or no
 * address for a name that exists, a wrong address, an address for a name that does not) and
 * p50/p99 latency per phase. Goal: 0 lost, 0 wrong; p99 during the roll close to steady state.
 *
 *   npm run bench:dns-ha
 *   node --import tsx bench/dns/ha.ts --qps 2000 --steady 10 --names 100 --changes-per-second 2 --timeout-ms 1000
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient, HA_ZONE, HaSet, ReadinessWatch, sleep, until } from '../../test/support/ha-set.ts';
import type { DnsAnswer } from '../../test/support/ha-set.ts';
import { startTestApiServer } from '../../test/support/kube-apiserver/server.ts';
import type { TestApiServer } from '../../test/support/kube-apiserver/server.ts';

/** A tenth of the queries ask for a name that does not exist: NXDOMAIN is then the right answer. */
const MISSING_SHARE = 10;
const SEND_EVERY_MS = 2;

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const v = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} needs a number, got ${process.argv[at + 1]}`);
  return v;
}

interface PhaseStats {
  name: string;
  startedAt: number;
  endedAt: number;
  sent: number;
  lost: number;
  /** NXDOMAIN (or no address) for a name that exists. */
  missing: number;
  /** A wrong address, an address for a missing name, REFUSED or SERVFAIL. */
  wrong: number;
  /** Moments no replica was Ready: a query then has nowhere to go. */
  unsendable: number;
  latencies: number[];
  perReplica: number[];
}

function phase(name: string, size: number): PhaseStats {
  return {
    name,
    startedAt: Date.now(),
    endedAt: 0,
    sent: 0,
    lost: 0,
    missing: 0,
    wrong: 0,
    unsendable: 0,
    latencies: [],
    perReplica: new Array<number>(size).fill(0),
  };
}

function service(name: string, address: string): Parameters<TestApiServer['create']>[0] {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': `${name}.${HA_ZONE}` } },
    spec: { type: 'LoadBalancer', externalIPs: [address] },
  };
}

const addressOf = (i: number): string => `10.2.${i >> 8}.${i & 255}`;

/** Sends at `qps` to the Ready replicas in turn and files every answer under the current phase. */
class Load {
  current: PhaseStats;
  private timer: NodeJS.Timeout | undefined;
  private rr = 0;
  private seq = 0;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly set: HaSet,
    private readonly watch: ReadinessWatch,
    private readonly client: DnsClient,
    private readonly opts: { qps: number; names: number; timeoutMs: number },
  ) {
    this.current = phase('idle', set.size);
  }

  start(first: PhaseStats): void {
    this.current = first;
    this.timer = setInterval(() => this.send(), SEND_EVERY_MS);
  }

  next(p: PhaseStats): void {
    this.current.endedAt = Date.now();
    this.current = p;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.current.endedAt = Date.now();
    await Promise.all(this.inFlight);
  }

  /** Catches up to the rate since the phase began; a stalled client shows as fewer sent, never a burst of thousands. */
  private send(): void {
    const p = this.current;
    const due = Math.floor((this.opts.qps * (Date.now() - p.startedAt)) / 1000) - p.sent - p.unsendable;
    for (let n = 0; n < Math.min(due, 200); n++) {
      const ready = Array.from({ length: this.set.size }, (_, i) => this.watch.readyIncarnation(i)).filter((r) => r !== undefined);
      const target = ready[this.rr++ % Math.max(1, ready.length)];
      if (target === undefined) {
        p.unsendable++;
        continue;
      }
      const k = this.seq++;
      const missing = k % MISSING_SHARE === 0;
      const i = k % this.opts.names;
      p.sent++;
      p.perReplica[target.index] = (p.perReplica[target.index] ?? 0) + 1;
      const q = this.client
        .query(target.dnsPort, missing ? `missing-${i}.${HA_ZONE}` : `host-${i}.${HA_ZONE}`, 'A', this.opts.timeoutMs)
        .then((a) => judge(p, a, missing ? undefined : addressOf(i)));
      this.inFlight.add(q);
      void q.then(() => this.inFlight.delete(q));
    }
  }
}

function judge(p: PhaseStats, a: DnsAnswer | undefined, expected: string | undefined): void {
  if (a === undefined) return void p.lost++;
  p.latencies.push(a.ms);
  if (expected === undefined) {
    if (a.rcode !== 'NXDOMAIN') p.wrong++;
  } else if (a.rcode === 'NXDOMAIN' || (a.rcode === 'NOERROR' && a.addresses.length === 0)) p.missing++;
  else if (a.rcode !== 'NOERROR' || a.addresses.length !== 1 || a.addresses[0] !== expected) p.wrong++;
}

/** Creates a Service every 1/rate s and deletes the oldest beyond 10, on names the load never asks for. */
function churn(api: TestApiServer, perSecond: number): () => void {
  if (perSecond === 0) return () => {};
  let k = 0;
  const timer = setInterval(() => {
    api.create(service(`churn-${k}`, `10.3.${(k >> 8) & 255}.${k & 255}`));
    if (k >= 10) api.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: `churn-${k - 10}` });
    k++;
  }, 1000 / perSecond);
  return () => clearInterval(timer);
}

function pct(sorted: number[], p: number): string {
  const v = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  return v === undefined ? '-' : `${v.toFixed(2)} ms`;
}

function table(phases: PhaseStats[]): string {
  const head = ['phase', 'seconds', 'sent', 'answered', 'lost', 'missing', 'wrong', 'no Ready', 'p50', 'p99', 'max', 'per replica'];
  const rows = phases.map((p) => {
    const lat = [...p.latencies].sort((a, b) => a - b);
    return [
      p.name,
      ((p.endedAt - p.startedAt) / 1000).toFixed(1),
      String(p.sent),
      String(p.latencies.length),
      String(p.lost),
      String(p.missing),
      String(p.wrong),
      String(p.unsendable),
      pct(lat, 0.5),
      pct(lat, 0.99),
      pct(lat, 1),
      p.perReplica.join('/'),
    ];
  });
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  return [head, ...rows].map((r) => r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  ')).join('\n');
}

async function main(): Promise<void> {
  const qps = arg('--qps', 2000);
  const steadyS = arg('--steady', 10);
  const names = Math.max(1, arg('--names', 100));
  const timeoutMs = arg('--timeout-ms', 1000);
  const changesPerSecond = arg('--changes-per-second', 2);
  const api = await startTestApiServer({ bookmarkIntervalMs: 200 });
  const root = await mkdtemp(join(tmpdir(), 'hw-bench-ha-'));
  let set: HaSet | undefined;
  const notes: string[] = [];
  let finished = false;
  try {
    for (let i = 0; i < names; i++) api.create(service(`host-${i}`, addressOf(i)));
    set = await HaSet.start({ api, root });
    const s = set;
    await s.waitAllReady(60_000);
    const client = await DnsClient.open();
    // Every replica answers every name before the clock starts.
    let seen = '';
    await until(
      'every replica answering every name',
      async () => {
        const last = await Promise.all(
          Array.from({ length: s.size }, (_, r) => client.query(s.replica(r)!.dnsPort, `host-${names - 1}.${HA_ZONE}`, 'A', 1000)),
        );
        const serials = await Promise.all(Array.from({ length: s.size }, (_, r) => s.soaSerial(r, client)));
        seen = last.map((a, r) => `replica ${r}: ${a?.rcode ?? 'no answer'} ${a?.addresses.join(',') ?? ''} serial ${serials[r]}`).join('; ');
        return last.every((a) => a?.addresses[0] === addressOf(names - 1)) ? true : undefined;
      },
      30_000,
      100,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: host-${names - 1}.${HA_ZONE} answered ${seen}`);
    });
    const watch = new ReadinessWatch(s, 50);
    watch.start();
    await sleep(200);
    const stopChurn = churn(api, changesPerSecond);
    const load = new Load(s, watch, client, { qps, names, timeoutMs });
    const steady = phase('steady', s.size);
    load.start(steady);
    await sleep(steadyS * 1000);
    const roll = phase('rolling restart', s.size);
    load.next(roll);
    for (let i = 0; i < s.size; i++) {
      const leader = s.leaderIndex() === i;
      const at = Date.now();
      const code = await s.kill(i, 'SIGTERM');
      const exited = Date.now();
      await s.start(i);
      await s.waitReady(i, 60_000);
      notes.push(`replica ${i}${leader ? ' (leader)' : ''}: exit ${code} after ${exited - at} ms, Ready again ${Date.now() - at} ms after SIGTERM`);
    }
    // The last replica back gets its share for a moment before the phase ends.
    await sleep(1000);
    await load.stop();
    stopChurn();
    watch.stop();
    client.close();
    console.log(
      `DNS answers of 3 embedded replicas during a rolling restart: ${qps} qps of A queries (${100 / MISSING_SHARE}% for missing names) over ${names} names, ` +
        `per-query timeout ${timeoutMs} ms, ${changesPerSecond} Service changes/s; the client sends only to replicas whose /readyz answered 200 at its last poll (every 50 ms); ` +
        `--shutdown-drain 300ms; load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    console.log(table([steady, roll]));
    for (const n of notes) console.log(`  ${n}`);
    const bad = [steady, roll].reduce((sum, p) => sum + p.lost + p.missing + p.wrong + p.unsendable, 0);
    console.log(bad === 0 ? 'goal met: no lost or wrong answer' : `goal NOT met: ${bad} lost, wrong or unsendable queries`);
    finished = true;
  } finally {
    await set?.stop();
    await api.stop();
    if (finished) await rm(root, { recursive: true, force: true });
    else console.error(`each process's log is kept in ${root}`);
  }
}

await main();
