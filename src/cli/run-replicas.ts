/**
 * `run` with the embedded provider and leader election: the replicas form one set that answers as
 * one (docs/providers/embedded.md, "Several replicas"). The leader writes; the others follow it by
 * IXFR/AXFR, signed with the set's own TSIG key. Built only when the process elects, serves DNS and
 * loops (not --once); otherwise `run` is the single writer it always was.
 */
import { Counter, Gauge } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { Config } from '../config/config.ts';
import { parseListenAddress } from '../config/config.ts';
import { backoffDelay, sleep } from '../backoff.ts';
import { ConfigError, errorMessage, isTransient } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { TsigKey } from '../dns/tsig.ts';
import { PeerFollower } from '../provider/embedded/follower.ts';
import { loadOrCreatePeerKey } from '../provider/embedded/peer-key.ts';
import { ReplicaRole, parseTarget } from '../provider/embedded/replica-role.ts';
import type { SerialRecorder } from '../provider/embedded/serial-keeper.ts';
import type { ZoneStore } from '../provider/embedded/zone-store.ts';
import type { KubeRunHooks } from './run-hooks.ts';
import { ObjectWatch } from '../kube/object-watch.ts';
import { LEASES } from '../kube/resource.ts';

export interface ReplicaSet {
  role: ReplicaRole;
  follower: PeerFollower;
  /** Accepted by this replica's DNS server for transfers (undefined: the set transfers unsigned). */
  peerKey: TsigKey | undefined;
  /** Follows the leader (with the DNS server started) until stopped. */
  start(): void;
  stop(): Promise<void>;
}

export interface ReplicaSetDeps {
  kube: KubeRunHooks;
  store: ZoneStore;
  recorder: SerialRecorder | undefined;
  logger: Logger;
  metrics: MetricsRegistry;
  env: Readonly<Record<string, string | undefined>> | undefined;
  /** Asks the sync loop for a sync. */
  trigger: () => void;
  stopSignal: AbortSignal;
}

/** True when `run` forms a replica set: embedded provider, leader election, DNS served, not --once. */
export function formsReplicaSet(cfg: Config, kube: KubeRunHooks | undefined): kube is KubeRunHooks {
  return cfg.provider === 'embedded' && kube?.elector !== undefined && cfg.dnsListen.length > 0 && !cfg.once;
}

/**
 * Where the other replicas transfer from while this one leads: the flag, else POD_IP, else the
 * --dns-listen host when it is a specific address; undefined when none says (then `run` stays the
 * single writer it was before replica sets, so an upgrade without POD_IP keeps starting).
 */
export function peerAddressOf(cfg: Config, env: ReplicaSetDeps['env']): string | undefined {
  const flag = cfg.flags.str('embedded-peer-address');
  if (flag !== '') {
    const target = parseTarget(flag);
    if (target === undefined) throw new ConfigError(`--embedded-peer-address ${JSON.stringify(flag)} is not host:port`, '--embedded-peer-address');
    if (['0.0.0.0', '::', '*'].includes(target.host))
      throw new ConfigError(
        `--embedded-peer-address ${JSON.stringify(flag)}: other replicas cannot reach an unspecified address; give this replica's own`,
        '--embedded-peer-address',
      );
    return flag;
  }
  const listen = parseListenAddress(cfg.dnsListen[0] ?? '', '--dns-listen');
  const podIp = env?.['POD_IP']?.trim() ?? '';
  const host = podIp !== '' ? podIp : ['', '0.0.0.0', '::'].includes(listen.host) ? '' : listen.host;
  if (host === '') return undefined;
  return host.includes(':') ? `[${host}]:${listen.port}` : `${host}:${listen.port}`;
}

export function refreshMsOf(cfg: Config): number {
  const ms = cfg.flags.num('embedded-peer-refresh');
  if (!(ms >= 10 && ms <= 3_600_000)) throw new ConfigError('--embedded-peer-refresh must be between 10ms and 1h', '--embedded-peer-refresh');
  return ms;
}

/** Builds the set's parts and hands the role to the elector; the caller starts the follower with the DNS server. */
export async function replicaSetOf(cfg: Config, deps: ReplicaSetDeps): Promise<ReplicaSet> {
  const { kube, store, recorder, logger, metrics } = deps;
  const elector = kube.elector;
  if (elector === undefined) throw new Error('replicaSetOf needs leader election');
  const log = logger.child({ component: 'replicas' });
  const peerAddress = peerAddressOf(cfg, deps.env);
  if (peerAddress === undefined) throw new Error('replicaSetOf needs a peer address');
  const peerKey = await peerKeyOf(cfg, kube, log);
  const transfers = new Counter({
    name: 'hostwarden_embedded_peer_transfers_total',
    help: 'Zone transfers a follower replica made from the leader, by kind (ixfr, axfr, current, failed).',
    labelNames: ['zone', 'kind'],
    registers: [metrics],
  });
  const leader = new Gauge({
    name: 'hostwarden_embedded_leader',
    help: '1 while this replica leads the embedded replica set and publishes its zones, else 0.',
    registers: [metrics],
  });
  leader.set(0);
  const late: { role?: ReplicaRole } = {};
  let lookedAt = 0;
  const follower = new PeerFollower({
    store,
    logger: log.child({ role: 'follower' }),
    leader: () => late.role?.leaderTarget(),
    holder: () => late.role?.holder() ?? '',
    // The leader follows no one: waking its elector on each refresh would write the Lease every
    // --embedded-peer-refresh instead of every retry period.
    // Only while the Lease watch is down (it reports a new leader at once), and at most once a second.
    lookAgain: () => {
      const now = Date.now();
      if (elector.isLeader() || late.role?.watching() === true || now - lookedAt < 1000) return;
      lookedAt = now;
      elector.renewSoon();
    },
    refreshMs: refreshMsOf(cfg),
    ...(peerKey === undefined ? {} : { tsig: peerKey }),
    events: { transferred: (zone, kind) => transfers.inc({ zone, kind }) },
  });
  const role = new ReplicaRole({
    store,
    elector,
    loadFloors: recorder === undefined ? undefined : () => recorder.loadFloors(),
    peerAddress,
    logger: log,
    trigger: deps.trigger,
    onRole: (leading) => leader.set(leading ? 1 : 0),
  });
  late.role = role;
  // On the stop signal the Lease goes at once, not after the DNS drain: the sync loop has stopped,
  // and a follower can take over (and publish) while this replica still answers.
  deps.stopSignal.addEventListener('abort', () => void elector.stop(true), { once: true });
  kube.setRoleHooks({ annotations: () => role.annotations(), startedLeading: () => role.startedLeading(), stoppedLeading: () => role.stoppedLeading() });
  // The Lease is watched, not only read every retry period: a new leader's address reaches the
  // followers at once, so a change made by a new leader reaches them as fast as any other.
  const leaseWatch = new ObjectWatch({
    client: kube.client,
    resource: LEASES,
    namespace: elector.lease.namespace,
    name: elector.lease.name,
    logger: log,
    onChange: (lease) => {
      role.leaseSeen(lease);
      follower.wake();
    },
    onBroken: () => role.leaseSeen(null),
  });
  return {
    role,
    follower,
    peerKey,
    start: () => {
      leaseWatch.start();
      follower.start();
    },
    stop: async () => {
      await leaseWatch.stop();
      await follower.stop();
    },
  };
}

/** The set's TSIG key from its Secret; without it (refused, or "") the set transfers unsigned, with a warning. */
async function peerKeyOf(cfg: Config, kube: KubeRunHooks, log: Logger): Promise<TsigKey | undefined> {
  const name = cfg.flags.str('embedded-peer-secret');
  if (name === '') return undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await loadOrCreatePeerKey({ client: kube.client, namespace: kube.namespace, name });
    } catch (err) {
      if (!isTransient(err) || attempt >= 3) {
        log.warn(
          { secret: `${kube.namespace}/${name}`, err: errorMessage(err) },
          'no TSIG key for transfers between the replicas: they transfer unsigned, so --dns-allow-transfer must admit them',
        );
        return undefined;
      }
    }
    await sleep(backoffDelay({ initialMs: 500, maxMs: 2000 }, attempt));
  }
}
