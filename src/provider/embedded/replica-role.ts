/**
 * The embedded provider as a set of replicas (see docs/providers/embedded.md, "Several replicas"):
 * the leader of the election writes, the others follow it by zone transfer. This class is the
 * hinge between the elector and the zone store:
 *
 * - Taking over: the kept serials are read again (another replica led meanwhile) before this one
 *   applies anything, so its first change goes past every serial any replica served.
 * - Publishing: the transfer address goes on the Lease only after this leader's first successful
 *   sync, so followers never copy the half-built zones of a new pod that became leader at once.
 *   A zone still below its kept serial then is moved past it, so the set's serial moves forward.
 * - Following: while another replica leads, the follower pulls from the address it published.
 */
import type { Logger } from '../../log.ts';
import type { Target } from '../../dns/transfer/net.ts';
import { errorMessage } from '../../errors.ts';
import type { ZoneStore } from './zone-store.ts';

/** The Lease annotation where the leader publishes where its zones can be transferred from. */
export const PEER_ADDRESS_ANNOTATION = 'hostwarden.io/embedded-peer-address';

/** The part of the elector the role reads. */
export interface RoleElector {
  readonly identity: string;
  isLeader(): boolean;
  observedLease(): { holder: string; annotations: Readonly<Record<string, string>> } | undefined;
  renewSoon(): void;
}

export interface ReplicaRoleOptions {
  store: Pick<ZoneStore, 'raiseFloors' | 'bump' | 'zones'>;
  elector: RoleElector;
  /** The kept serials, read again at each takeover (undefined: none kept). */
  loadFloors: (() => Promise<Map<string, number>>) | undefined;
  /** host:port other replicas transfer from while this one leads. */
  peerAddress: string;
  logger: Logger;
  /** Asks the sync loop for a sync (after a takeover). */
  trigger: () => void;
  /** 1 while leading and published, else 0 (metrics). */
  onRole?: (leading: boolean) => void;
}

export class ReplicaRole {
  private readonly opts: ReplicaRoleOptions;
  private takenOver = false;
  /** The Lease as the watch last saw it; fresher than the elector's periodic read. */
  private watched: { holder: string; annotations: Readonly<Record<string, string>> } | undefined;
  private published = false;
  /** Bumped on each change of role, so a takeover that finishes after losing the lease does nothing. */
  private term = 0;

  constructor(opts: ReplicaRoleOptions) {
    this.opts = opts;
  }

  /** What the elector writes on the Lease in this replica's renewals. */
  annotations(): Record<string, string | undefined> {
    return { [PEER_ADDRESS_ANNOTATION]: this.published ? this.opts.peerAddress : undefined };
  }

  /** The sync loop applies only once the takeover read the kept serials. */
  canApply(): boolean {
    return this.takenOver && this.opts.elector.isLeader();
  }

  /** Whether this replica answers as the set's writer (readiness and metrics). */
  leading(): boolean {
    return this.published && this.opts.elector.isLeader();
  }

  /** The Lease object from a watch (undefined: deleted; null: the watch broke, so the elector's read counts). */
  leaseSeen(lease: Record<string, unknown> | undefined | null): void {
    if (lease === null) return void (this.watched = undefined);
    const meta = (lease?.['metadata'] ?? {}) as { annotations?: Record<string, string> };
    const spec = (lease?.['spec'] ?? {}) as { holderIdentity?: string };
    this.watched = { holder: spec.holderIdentity ?? '', annotations: meta.annotations ?? {} };
  }

  /** The Lease's holder as last seen ('' when none). */
  holder(): string {
    return (this.watched ?? this.opts.elector.observedLease())?.holder ?? '';
  }

  /** True while the Lease watch is up (it reports a new leader at once). */
  watching(): boolean {
    return this.watched !== undefined;
  }

  /** Where to transfer from: the published address of another holder, or undefined. */
  leaderTarget(): Target | undefined {
    if (this.opts.elector.isLeader()) return undefined;
    const lease = this.watched ?? this.opts.elector.observedLease();
    if (lease === undefined || lease.holder === '' || lease.holder === this.opts.elector.identity) return undefined;
    return parseTarget(lease.annotations[PEER_ADDRESS_ANNOTATION]);
  }

  startedLeading(): void {
    const term = ++this.term;
    void this.takeOver(term);
  }

  stoppedLeading(): void {
    this.term++;
    this.takenOver = false;
    this.published = false;
    this.opts.onRole?.(false);
  }

  /** After each sync as leader: the first one publishes this replica as the set's source. */
  async synced(): Promise<void> {
    if (this.published || !this.canApply()) return;
    const term = this.term;
    const behind = this.opts.store.raiseFloors(new Map());
    for (const zone of behind) {
      // Lost the Lease meanwhile: a follower must not give a serial of its own to its copy.
      if (term !== this.term || !this.canApply()) return;
      const serial = await this.opts.store.bump(zone);
      this.opts.logger.info({ zone, serial }, 'moved the zone past the serial kept in the cluster');
    }
    if (term !== this.term) return;
    this.published = true;
    this.opts.onRole?.(true);
    this.opts.logger.info({ peerAddress: this.opts.peerAddress }, 'leading: other replicas transfer the zones from here');
    this.opts.elector.renewSoon();
  }

  private async takeOver(term: number): Promise<void> {
    try {
      const floors = (await this.opts.loadFloors?.()) ?? new Map<string, number>();
      this.opts.store.raiseFloors(floors);
    } catch (err) {
      // loadFloors never throws today; if it did, applying without fresh floors risks a reused serial.
      this.opts.logger.warn({ err: errorMessage(err) }, 'cannot read the kept serials at takeover');
    }
    if (term !== this.term) return;
    this.takenOver = true;
    this.opts.trigger();
  }
}

/** `host:port` or `[v6]:port` from the annotation; undefined for anything else. */
export function parseTarget(text: string | undefined): Target | undefined {
  if (text === undefined) return undefined;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(text.trim());
  if (m === null) return undefined;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: (m[1] ?? m[2]) as string, port };
}
