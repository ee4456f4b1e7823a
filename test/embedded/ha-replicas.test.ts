/**
 * Three `hostwarden run` replicas of one embedded zone against one API server (issue 26: the leader
 * writes, the others follow by IXFR/AXFR). A client queries the replicas in turn while Services are
 * created and deleted, through a follower's kill -9 and restart, the leader's kill -9 and a rolling
 * restart (each replica restarts on an empty data dir, as a Pod's emptyDir does). Asserted throughout:
 * - a name that exists (created, and seen on every running replica) never gets a negative answer
 *   from a replica last seen Ready, and never the wrong address; a Ready replica never brings a
 *   deleted name back;
 * - a change reaches every Ready replica within 1 s of the first replica that answers it; when the
 *   leader changes meanwhile, within 2 s of the new leader's takeover;
 * - a Ready replica's SOA serial never decreases, and a restarted one serves no serial below the
 *   highest the set served before its restart;
 * at steady state (all Ready, no change for 1 s): equal SOA serials, never below any served
 * before, and the same authoritative answers from every replica (checked with dig).
 */
import { after, before, describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dig, digAvailable, digBatch } from '../support/dig.ts';
import { DnsClient, HA_ZONE, HaSet, LEASE_DURATION_MS, RETRY_PERIOD_MS, ReadinessWatch, sleep, tailOf, until } from '../support/ha-set.ts';
import type { DnsAnswer, Incarnation } from '../support/ha-set.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

const skip = !(await digAvailable()) && 'dig is not installed (apt-get install bind9-dnsutils)';
/** One replica is asked every TICK_MS × 3. */
const TICK_MS = 6;
const CHANGE_EVERY_MS = 300;
/** Names alive at once: a name lives about 2 × LIVE_NAMES changes. */
const LIVE_NAMES = 5;
const SPREAD_MS = 1000;
/** After a new leader holds the Lease: its first sync, its published address, followers finding it, one refresh. */
const AFTER_TAKEOVER_MS = 2000;
const CHANGE_TIMEOUT_MS = 15_000;
const QUERY_TIMEOUT_MS = 500;

interface NameState {
  name: string;
  address: string;
  createdAt: number;
  establishedAt?: number;
  deletedAt?: number;
  /** Incarnations that answered it with its address, Ready or not. */
  seenBy: Set<number>;
}

interface Change {
  kind: 'create' | 'delete';
  state: NameState;
  at: number;
  /** The leader's incarnation when the change was made. */
  leaderAt: number | undefined;
  /** Incarnations Ready and not stopping when the change was made: each must see it. */
  members: Set<number>;
  /** When each incarnation first answered the change (receive time). */
  seen: Map<number, number>;
  done: boolean;
}

function service(s: NameState): Parameters<TestApiServer['create']>[0] {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: s.name.split('.')[0] ?? '', namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': s.name } },
    spec: { type: 'LoadBalancer', externalIPs: [s.address] },
  };
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

/** Watches every answer against the changes made and records what breaks the rules above. */
class Observer {
  private readonly broken = new Map<string, { first: string; count: number }>();
  readonly names = new Map<string, NameState>();
  readonly changes: Change[] = [];
  readonly spreads: number[] = [];
  readonly takeoverSpreads: number[] = [];
  answers = 0;
  counted = 0;
  lost = 0;
  superseded = 0;
  maxServed = 0;
  private readonly maxSerial = new Map<number, number>();
  private readonly floor = new Map<number, number>();
  private readonly nextFloor = new Map<number, number>();
  private readonly positive = new Set<string>();
  private readonly negativeAfterPositive = new Set<string>();
  private readonly leaders: { at: number; id: number | undefined }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private k = 0;

  constructor(
    private readonly set: HaSet,
    private readonly watch: ReadinessWatch,
    private readonly client: DnsClient,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Each rule broken is kept once per `key` (a replica and a name, say), with how often and when first. */
  violation(key: string, text: string): void {
    const seen = this.broken.get(key);
    if (seen !== undefined) seen.count++;
    else this.broken.set(key, { first: `${new Date().toISOString()} ${text}`, count: 1 });
  }

  violations(): string[] {
    return [...this.broken.values()].map((v) => (v.count === 1 ? v.first : `${v.first} (${v.count} times)`));
  }

  /** Called before replica `i` is restarted: its next process must not serve below this. */
  noteRestart(i: number): void {
    this.nextFloor.set(i, this.maxServed);
  }

  leaderId(): number | undefined {
    const l = this.set.leaderIndex();
    return l === undefined ? undefined : this.set.replica(l)?.id;
  }

  pending(): Change[] {
    return this.changes.filter((c) => !c.done);
  }

  participants(): Incarnation[] {
    return Array.from({ length: this.set.size }, (_, i) => this.set.replica(i)).filter((r): r is Incarnation => r !== undefined && r.alive() && !r.signalled());
  }

  record(kind: Change['kind'], state: NameState): void {
    const members = new Set(this.participants().flatMap((r) => (this.watch.readyIncarnation(r.index)?.id === r.id ? [r.id] : [])));
    this.changes.push({ kind, state, at: Date.now(), leaderAt: this.leaderId(), members, seen: new Map(), done: false });
  }

  private tick(): void {
    this.trackLeader();
    this.checkEstablished();
    this.checkChanges();
    const inc = this.set.replica(this.k++ % this.set.size);
    if (inc === undefined || !inc.alive()) return;
    for (const c of this.pending()) this.ask(inc, c.state.name, 'A');
    const live = [...this.names.values()].filter((s) => s.establishedAt !== undefined && s.deletedAt === undefined);
    const pick = live[this.k % Math.max(1, live.length)];
    if (pick !== undefined) this.ask(inc, pick.name, 'A');
    this.ask(inc, HA_ZONE, 'SOA');
  }

  private ask(inc: Incarnation, name: string, type: 'A' | 'SOA'): void {
    const sentAt = Date.now();
    const ready = this.watch.readyIncarnation(inc.index)?.id === inc.id;
    void this.client.query(inc.dnsPort, name, type, QUERY_TIMEOUT_MS).then((a) => this.onAnswer(inc, name, sentAt, ready, a));
  }

  private onAnswer(inc: Incarnation, name: string, sentAt: number, ready: boolean, a: DnsAnswer | undefined): void {
    if (a === undefined) {
      if (ready && inc.alive() && !inc.signalled()) this.lost++;
      return;
    }
    this.answers++;
    if (name === HA_ZONE) return this.onSerial(inc, ready, a);
    const st = this.names.get(name);
    if (st === undefined) return;
    const positive = a.rcode === 'NOERROR' && a.addresses.length > 0;
    const right = positive && a.addresses.length === 1 && a.addresses[0] === st.address;
    this.noteSeen(inc, st, a, sentAt, right);
    if (!ready) return;
    this.counted++;
    const who = `replica ${inc.index} (process ${inc.id})`;
    if (positive && !right) this.violation(`wrong ${inc.id} ${name}`, `${who} answered ${name} with ${a.addresses.join(',')}, expected ${st.address}`);
    const exists = st.establishedAt !== undefined && st.establishedAt < sentAt && (st.deletedAt === undefined || sentAt < st.deletedAt);
    if (exists && !positive)
      this.violation(
        `negative ${inc.id} ${name}`,
        `${who}, Ready, answered ${a.rcode} without an address for ${name}, which exists (everywhere since ${st.establishedAt}); its SOA serial ${this.maxSerial.get(inc.id)}, the set's highest ${this.maxServed}`,
      );
    const key = `${inc.id} ${name}`;
    if (positive) {
      if (this.negativeAfterPositive.has(key))
        this.violation(`back ${inc.id} ${name}`, `${who}, Ready, answered ${name} again after it had answered NXDOMAIN for it`);
      this.positive.add(key);
    } else if (a.rcode === 'NXDOMAIN' && this.positive.has(key)) this.negativeAfterPositive.add(key);
  }

  private noteSeen(inc: Incarnation, st: NameState, a: DnsAnswer, sentAt: number, right: boolean): void {
    const now = Date.now();
    if (right) st.seenBy.add(inc.id);
    for (const c of this.changes) {
      if (c.done || c.state !== st || c.seen.has(inc.id)) continue;
      if (c.kind === 'create' ? right : a.rcode === 'NXDOMAIN' && sentAt >= c.at) c.seen.set(inc.id, now);
    }
  }

  private onSerial(inc: Incarnation, ready: boolean, a: DnsAnswer): void {
    if (!ready) return;
    this.counted++;
    const who = `replica ${inc.index} (process ${inc.id})`;
    if (a.serial === undefined) return this.violation(`no soa ${inc.id}`, `${who}, Ready, answered ${a.rcode} without the SOA of ${HA_ZONE}`);
    const prev = this.maxSerial.get(inc.id);
    if (prev !== undefined && a.serial < prev) this.violation(`serial back ${inc.id}`, `${who}: SOA serial ${a.serial} after ${prev}`);
    if (!this.floor.has(inc.id)) this.floor.set(inc.id, this.nextFloor.get(inc.index) ?? 0);
    const floor = this.floor.get(inc.id) ?? 0;
    if (a.serial < floor)
      this.violation(`floor ${inc.id}`, `${who}, restarted: SOA serial ${a.serial} below ${floor}, which the set served before the restart`);
    this.maxSerial.set(inc.id, Math.max(prev ?? 0, a.serial));
    this.maxServed = Math.max(this.maxServed, a.serial);
  }

  private trackLeader(): void {
    const id = this.leaderId();
    if (this.leaders.length === 0 || this.leaders[this.leaders.length - 1]?.id !== id) this.leaders.push({ at: Date.now(), id });
  }

  /** When `id` last became the observed leader. */
  private leaderSince(id: number | undefined): number {
    for (let n = this.leaders.length - 1; n >= 0; n--) if (this.leaders[n]?.id === id && this.leaders[n - 1]?.id !== id) return this.leaders[n]?.at ?? 0;
    return 0;
  }

  /** A created name exists once every running replica has answered it. */
  private checkEstablished(): void {
    const now = Date.now();
    const ids = this.participants().map((r) => r.id);
    for (const st of this.names.values()) {
      if (st.establishedAt !== undefined || st.deletedAt !== undefined) continue;
      if (ids.length > 0 && ids.every((id) => st.seenBy.has(id))) st.establishedAt = now;
    }
  }

  private checkChanges(): void {
    const now = Date.now();
    const live = new Set(this.participants().map((r) => r.id));
    for (const c of this.pending()) {
      const members = [...c.members].filter((id) => live.has(id));
      if (members.every((id) => c.seen.has(id))) this.settle(c, members);
      else if (c.kind === 'create' && c.state.deletedAt !== undefined) {
        // Deleted before every replica answered it (a leader that died with it unsent, say): the
        // delete is what they must show now, and the steady-state checks compare the whole zone.
        c.done = true;
        this.superseded++;
      } else if (now - c.at > CHANGE_TIMEOUT_MS) {
        c.done = true;
        this.violation(
          `timeout ${c.kind} ${c.state.name}`,
          `${c.kind} of ${c.state.name} not seen by processes ${members.filter((id) => !c.seen.has(id)).join(',')} within ${CHANGE_TIMEOUT_MS} ms`,
        );
      }
    }
  }

  private settle(c: Change, members: number[]): void {
    c.done = true;
    if (members.length === 0) return;
    const first = Math.min(...c.seen.values());
    const last = Math.max(...members.map((id) => c.seen.get(id) ?? 0));
    const leaderNow = this.leaderId();
    const spread = last - first;
    const what = `${c.kind} of ${c.state.name}`;
    if (c.leaderAt !== undefined && c.leaderAt === leaderNow) {
      this.spreads.push(spread);
      if (spread > SPREAD_MS) this.violation(`spread ${what}`, `${what}: the last replica answered it ${spread} ms after the first`);
      return;
    }
    this.takeoverSpreads.push(spread);
    const late = last - Math.max(c.at, this.leaderSince(leaderNow));
    if (late > AFTER_TAKEOVER_MS)
      this.violation(`late ${what}`, `${what}, made during a change of leader: the last replica answered it ${late} ms after the new leader took over`);
  }
}

/** Creates and deletes one Service every CHANGE_EVERY_MS while running. */
class Churn {
  private timer: NodeJS.Timeout | undefined;
  private k = 0;
  private readonly live: NameState[] = [];

  constructor(
    private readonly api: TestApiServer,
    private readonly observer: Observer,
  ) {}

  run(): void {
    this.timer ??= setInterval(() => this.step(), CHANGE_EVERY_MS);
  }

  pause(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  get made(): number {
    return this.k;
  }

  private step(): void {
    if (this.live.length >= LIVE_NAMES) {
      const st = this.live.shift();
      if (st === undefined) return;
      st.deletedAt = Date.now();
      this.api.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: st.name.split('.')[0] ?? '' });
      this.observer.record('delete', st);
      return;
    }
    this.k++;
    const st: NameState = { name: `svc-${this.k}.${HA_ZONE}`, address: `10.1.${this.k >> 8}.${this.k & 255}`, createdAt: Date.now(), seenBy: new Set() };
    this.observer.names.set(st.name, st);
    this.live.push(st);
    this.api.create(service(st));
    this.observer.record('create', st);
  }
}

describe('three embedded replicas answer as one', { skip }, () => {
  let api: TestApiServer;
  let root: string;
  let set: HaSet | undefined;
  let watch: ReadinessWatch | undefined;
  let client: DnsClient | undefined;
  let observer: Observer | undefined;
  let churn: Churn | undefined;
  /** The temp directory (with every process's log) stays when the test fails. */
  let passed = false;

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    root = await mkdtemp(join(tmpdir(), 'hw-ha-'));
  });
  after(async () => {
    churn?.pause();
    observer?.stop();
    watch?.stop();
    client?.close();
    await set?.stop();
    await api.stop();
    if (passed) await rm(root, { recursive: true, force: true });
  });

  /** Steady state: all Ready, every change everywhere, then 1 s without a change. */
  async function steady(t: TestContext, label: string): Promise<void> {
    const s = set!;
    const o = observer!;
    churn!.pause();
    await s.waitAllReady(20_000);
    await until(`${label}: the changes made reach every replica`, () => (o.pending().length === 0 ? true : undefined), CHANGE_TIMEOUT_MS + 1000);
    await sleep(1000);
    const ports = Array.from({ length: s.size }, (_, i) => s.replica(i)!.dnsPort);
    const soas = await Promise.all(ports.map(async (p) => (await dig(p, [HA_ZONE, 'SOA', '+norec'])).answer.join('\n')));
    const serials = soas.map((soa) => Number(soa.split(' ')[6]));
    t.diagnostic(`${label}: SOA serials ${serials.join(', ')}; highest served so far ${o.maxServed}`);
    assert.ok(
      serials.every((x) => x === serials[0]),
      `${label}: SOA records differ at steady state:\n${soas.join('\n')}`,
    );
    assert.ok((serials[0] ?? 0) >= o.maxServed, `${label}: steady serial ${serials[0]} below ${o.maxServed}, served before`);
    // Every name ever made: a live one answers its address, a deleted one NXDOMAIN, the same everywhere.
    const all = [...o.names.values()];
    const queries = [...all.map((st) => [st.name, 'A']), [`never-made.${HA_ZONE}`, 'A']];
    const expected = [...all.map((st) => (st.deletedAt === undefined ? `NOERROR ${st.address}` : 'NXDOMAIN')), 'NXDOMAIN'];
    const answers = await Promise.all(ports.map((p) => digBatch(p, queries, ['+norec'])));
    for (const [n, a] of answers.entries()) {
      for (const r of a) assert.ok(r.flags.includes('aa'), `${label}: replica ${n} answered without AA:\n${r.raw}`);
      const got = a.map((r) => [r.status, ...r.answer.map((rr) => rr.split(' ').pop())].join(' '));
      const wrong = got.flatMap((g, q) => (g === expected[q] ? [] : [`${queries[q]?.[0]}: ${g}, expected ${expected[q]}`]));
      assert.deepEqual(wrong, [], `${label}: replica ${n} (SOA serial ${serials[n]}) answers differ from the cluster's objects`);
      assert.deepEqual(
        a.map((r) => r.answer),
        answers[0]!.map((r) => r.answer),
        `${label}: replica ${n} answers differently from replica 0`,
      );
    }
    // Rules broken so far are listed at the end, with those of the later steps.
    t.diagnostic(`${label}: ${o.violations().length} rules broken so far`);
    churn!.run();
  }

  test('kill -9 a follower, kill -9 the leader, roll all three: no wrong answer, serials agree and never go back', { timeout: 180_000 }, async (t) => {
    const began = Date.now();
    set = await HaSet.start({ api, root });
    const s = set;
    await s.waitAllReady(60_000);
    t.diagnostic(`three replicas Ready after ${Date.now() - began} ms`);
    watch = new ReadinessWatch(s, 100);
    watch.start();
    client = await DnsClient.open();
    const o = new Observer(s, watch, client);
    observer = o;
    churn = new Churn(api, o);
    o.start();
    churn.run();
    try {
      await sleep(2000);
      await steady(t, 'start');

      // A follower dies and comes back on an empty data dir.
      const leader = await until('a leader', () => s.leaderIndex(), LEASE_DURATION_MS * 3);
      const follower = (leader + 1) % s.size;
      await s.kill(follower, 'SIGKILL');
      await sleep(1000);
      o.noteRestart(follower);
      const restartAt = Date.now();
      await s.start(follower);
      await s.waitReady(follower, 30_000);
      t.diagnostic(`follower ${follower} restarted and Ready (caught up) after ${Date.now() - restartAt} ms`);
      await sleep(1000);
      await steady(t, 'follower restarted');

      // The leader dies: a follower takes over once the Lease expires, and changes go on.
      const old = await until('a leader', () => s.leaderIndex(), LEASE_DURATION_MS * 3);
      const killedAt = Date.now();
      await s.kill(old, 'SIGKILL');
      const next = await until('a new leader', () => s.leaderIndex(), LEASE_DURATION_MS + 5000, 20);
      const takeover = Date.now() - killedAt;
      t.diagnostic(`leader ${old} killed; replica ${next} took over after ${takeover} ms`);
      assert.ok(takeover <= LEASE_DURATION_MS + 4 * RETRY_PERIOD_MS, `takeover after ${takeover} ms`);
      const madeBefore = churn.made;
      o.noteRestart(old);
      await s.start(old);
      await s.waitReady(old, 30_000);
      await sleep(1000);
      assert.ok(churn.made > madeBefore, 'changes were made after the takeover');
      await steady(t, 'leader killed');

      // A rolling restart: each replica stops gracefully and comes back before the next.
      for (let i = 0; i < s.size; i++) {
        const wasLeader = s.leaderIndex() === i;
        const stopAt = Date.now();
        assert.equal(await s.kill(i, 'SIGTERM'), 0, `replica ${i} exits 0 on SIGTERM`);
        o.noteRestart(i);
        await s.start(i);
        await s.waitReady(i, 30_000);
        t.diagnostic(`roll: replica ${i}${wasLeader ? ' (the leader)' : ''} stopped, restarted and Ready in ${Date.now() - stopAt} ms`);
      }
      await sleep(1000);
      await steady(t, 'rolled');
    } catch (err) {
      for (const v of o.violations()) t.diagnostic(`broken: ${v}`);
      for (const inc of s.history) {
        t.diagnostic(`process ${inc.id} (replica ${inc.index}) last log lines:`);
        for (const line of tailOf(inc.logs, 15).split('\n')) t.diagnostic(line);
      }
      throw err;
    } finally {
      churn.pause();
      await sleep(500);
      o.stop();
      t.diagnostic(
        `${churn.made} Services made, ${o.changes.length} changes; ${o.answers} answers (${o.counted} from Ready replicas checked), ${o.lost} lost from Ready replicas; ` +
          `spread first→last replica p50 ${pct(o.spreads, 0.5)} ms, max ${Math.max(0, ...o.spreads)} ms; during a change of leader max ${Math.max(0, ...o.takeoverSpreads)} ms (${o.takeoverSpreads.length} changes); ` +
          `${o.superseded} creates deleted before every replica answered them; total ${Date.now() - began} ms; logs in ${root} (kept when the test fails)`,
      );
    }
    assert.deepEqual(o.violations(), []);
    assert.equal(o.pending().length, 0);
    passed = true;
  });
});
