import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../log.ts';
import { PEER_ADDRESS_ANNOTATION, ReplicaRole, parseTarget } from './replica-role.ts';
import type { ReplicaRoleOptions, RoleElector } from './replica-role.ts';

const ADDRESS = '10.0.0.1:53';

class FakeElector implements RoleElector {
  readonly identity = 'me';
  leader = false;
  lease: ReturnType<RoleElector['observedLease']>;
  renewals = 0;
  constructor(private readonly log: string[]) {}
  isLeader(): boolean {
    return this.leader;
  }
  observedLease(): ReturnType<RoleElector['observedLease']> {
    return this.lease;
  }
  renewSoon(): void {
    this.renewals++;
    this.log.push('renewSoon');
  }
}

/** The zone store's part the role uses: floors raised, zones below them, bumps. */
class FakeStore {
  floors = new Map<string, number>();
  below: string[] = [];
  constructor(private readonly log: string[]) {}
  zones(): string[] {
    return ['a.test', 'b.test'];
  }
  raiseFloors(floors: ReadonlyMap<string, number>): string[] {
    for (const [z, s] of floors) this.floors.set(z, s);
    this.log.push(`raiseFloors ${JSON.stringify([...floors])}`);
    return [...this.below];
  }
  bump(zone: string): Promise<number> {
    this.log.push(`bump ${zone}`);
    this.below = this.below.filter((z) => z !== zone);
    return Promise.resolve(1);
  }
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setup(opts: Partial<ReplicaRoleOptions> = {}): { role: ReplicaRole; elector: FakeElector; store: FakeStore; log: string[] } {
  const log: string[] = [];
  const elector = new FakeElector(log);
  const store = new FakeStore(log);
  const role = new ReplicaRole({
    store,
    elector,
    loadFloors: () => Promise.resolve(new Map([['a.test', 7]])),
    peerAddress: ADDRESS,
    logger: silentLogger(),
    trigger: () => void log.push('trigger'),
    onRole: (leading) => void log.push(`onRole ${leading}`),
    ...opts,
  });
  return { role, elector, store, log };
}

describe('ReplicaRole', () => {
  test('a takeover reads the floors before the sync loop may apply, then asks for a sync', async () => {
    const floors = deferred<Map<string, number>>();
    const { role, elector, log } = setup({ loadFloors: () => floors.promise });
    elector.leader = true;
    assert.equal(role.canApply(), false);
    role.startedLeading();
    await tick();
    assert.equal(role.canApply(), false, 'floors not read yet');
    assert.deepEqual(log, []);
    floors.resolve(new Map([['a.test', 7]]));
    await tick();
    assert.equal(role.canApply(), true);
    assert.deepEqual(log, ['raiseFloors [["a.test",7]]', 'trigger']);
    elector.leader = false;
    assert.equal(role.canApply(), false, 'only while the elector says it leads');
  });

  test('without kept serials the takeover goes on at once', async () => {
    const { role, elector, log } = setup({ loadFloors: undefined });
    elector.leader = true;
    role.startedLeading();
    await tick();
    assert.equal(role.canApply(), true);
    assert.deepEqual(log, ['raiseFloors []', 'trigger']);
  });

  test('the address is published only after the first sync, once zones below their floor moved past it', async () => {
    const { role, elector, store, log } = setup();
    assert.deepEqual(role.annotations(), { [PEER_ADDRESS_ANNOTATION]: undefined });
    elector.leader = true;
    await role.synced();
    assert.deepEqual(role.annotations(), { [PEER_ADDRESS_ANNOTATION]: undefined }, 'a sync before the takeover publishes nothing');
    role.startedLeading();
    await tick();
    assert.deepEqual(role.annotations(), { [PEER_ADDRESS_ANNOTATION]: undefined }, 'taken over, not synced yet');
    assert.equal(role.leading(), false);
    store.below = ['b.test'];
    log.length = 0;
    await role.synced();
    assert.deepEqual(log, ['raiseFloors []', 'bump b.test', 'onRole true', 'renewSoon']);
    assert.deepEqual(role.annotations(), { [PEER_ADDRESS_ANNOTATION]: ADDRESS });
    assert.equal(role.leading(), true);
    await role.synced();
    assert.equal(elector.renewals, 1, 'published once');
  });

  test('losing the lease unpublishes; a takeover that finishes after it does nothing', async () => {
    const floors = deferred<Map<string, number>>();
    let load = (): Promise<Map<string, number>> => Promise.resolve(new Map());
    const { role, elector, log } = setup({ loadFloors: () => load() });
    elector.leader = true;
    role.startedLeading();
    await tick();
    await role.synced();
    assert.equal(role.leading(), true);
    role.stoppedLeading();
    elector.leader = false;
    assert.deepEqual(role.annotations(), { [PEER_ADDRESS_ANNOTATION]: undefined });
    assert.equal(role.leading(), false);
    assert.equal(role.canApply(), false);
    assert.equal(log.at(-1), 'onRole false');

    load = () => floors.promise;
    elector.leader = true;
    role.startedLeading();
    role.stoppedLeading();
    elector.leader = false;
    log.length = 0;
    floors.resolve(new Map());
    await tick();
    assert.equal(role.canApply(), false);
    assert.ok(!log.includes('trigger'), log.join());
  });
});

describe('ReplicaRole.leaderTarget', () => {
  const lease = (holder: string, address?: string): Record<string, unknown> => ({
    metadata: { name: 'l', annotations: address === undefined ? {} : { [PEER_ADDRESS_ANNOTATION]: address } },
    spec: { holderIdentity: holder },
  });

  test("prefers the watched Lease, falls back to the elector's read when the watch broke", () => {
    const { role, elector } = setup();
    assert.equal(role.leaderTarget(), undefined, 'nothing seen yet');
    elector.lease = { holder: 'b', annotations: { [PEER_ADDRESS_ANNOTATION]: '10.0.0.2:53' } };
    assert.deepEqual(role.leaderTarget(), { host: '10.0.0.2', port: 53 });
    role.leaseSeen(lease('c', '10.0.0.3:5353'));
    assert.deepEqual(role.leaderTarget(), { host: '10.0.0.3', port: 5353 });
    role.leaseSeen(lease('c'));
    assert.equal(role.leaderTarget(), undefined, 'a new holder that has not published yet');
    role.leaseSeen(undefined);
    assert.equal(role.leaderTarget(), undefined, 'the Lease was deleted');
    role.leaseSeen(null);
    assert.deepEqual(role.leaderTarget(), { host: '10.0.0.2', port: 53 });
  });

  test('ignores its own identity, an empty holder, a junk address, and anything while it leads', () => {
    const { role, elector } = setup();
    role.leaseSeen(lease('me', '10.0.0.1:53'));
    assert.equal(role.leaderTarget(), undefined);
    role.leaseSeen(lease('', '10.0.0.2:53'));
    assert.equal(role.leaderTarget(), undefined, 'released');
    role.leaseSeen(lease('b', 'not an address'));
    assert.equal(role.leaderTarget(), undefined);
    role.leaseSeen(lease('b', '[fd00::2]:53'));
    assert.deepEqual(role.leaderTarget(), { host: 'fd00::2', port: 53 });
    elector.leader = true;
    assert.equal(role.leaderTarget(), undefined);
  });
});

test('parseTarget accepts host:port and [v6]:port, and nothing else', () => {
  assert.deepEqual(parseTarget('10.0.0.1:53'), { host: '10.0.0.1', port: 53 });
  assert.deepEqual(parseTarget(' pod-0.hostwarden.ns.svc:5353 '), { host: 'pod-0.hostwarden.ns.svc', port: 5353 });
  assert.deepEqual(parseTarget('[2001:db8::1]:65535'), { host: '2001:db8::1', port: 65535 });
  for (const junk of [
    undefined,
    '',
    '10.0.0.1',
    '10.0.0.1:',
    ':53',
    '10.0.0.1:0',
    '10.0.0.1:65536',
    '2001:db8::1:53',
    '[2001:db8::1]',
    'a b:53',
    '[zz]:53',
    '10.0.0.1:53x',
  ])
    assert.equal(parseTarget(junk), undefined, String(junk));
});
