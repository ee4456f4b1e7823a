/**
 * A follower replica of an embedded-provider set: it keeps its zones equal to the leader's by
 * asking the leader for each zone's SOA serial every refresh period and pulling what changed by
 * IXFR (RFC 1995), or the whole zone by AXFR when the leader's journal is too short or the copies
 * diverged, exactly as a BIND secondary would. Each copy is written to this replica's own zone
 * files (so it takes over from them if it becomes the leader) and swapped into its DNS server.
 *
 * Serials: once caught up, a follower only moves forward; a leader serial lower than ours is a new
 * leader that has not yet moved past the kept serial, and is waited out. The first transfer of each
 * zone after start is a full one (AXFR), whatever the serials: a new pod's fresh zone carries a
 * serial of its own making, which the leader may have given other content (the next change after
 * the kept serial), so an equal serial proves nothing until a copy came from the leader. It has
 * served nothing through the Service yet (it is not Ready).
 */
import { errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { querySoa, transferZone } from '../../dns/transfer/client.ts';
import type { TransferResult } from '../../dns/transfer/client.ts';
import { TransferError } from '../../dns/transfer/errors.ts';
import type { Target } from '../../dns/transfer/net.ts';
import type { TsigKey } from '../../dns/tsig.ts';
import type { ZoneContent } from '../../dns/zone-content.ts';
import { sleep } from '../../backoff.ts';
import { serialGreater } from './zone-store.ts';

/** The part of the zone store a follower uses. */
export interface FollowerStore {
  zones(): string[];
  content(zone: string): ZoneContent;
  replace(content: ZoneContent): Promise<void>;
}

export interface FollowerEvents {
  /** One transfer from the leader (metrics). */
  transferred?(zone: string, kind: TransferResult['kind'] | 'failed'): void;
}

export interface FollowerOptions {
  store: FollowerStore;
  logger: Logger;
  /** The leader's transfer address; undefined while no leader has published one, or when this replica leads. */
  leader: () => Target | undefined;
  /** Who holds the Lease (for /readyz while it has published nothing); '' when nobody does. */
  holder?: () => string;
  tsig?: TsigKey;
  refreshMs: number;
  /**
   * No leader published, or it does not answer: read the Lease again now rather than at the end of
   * the election's retry period, so a new leader is followed within a refresh of publishing.
   */
  lookAgain?: () => void;
  /** Per transfer (default 60 s) and bytes per transfer (default 1 GiB). */
  transferTimeoutMs?: number;
  maxTransferBytes?: number;
  events?: FollowerEvents;
}

export class PeerFollower {
  private readonly opts: FollowerOptions;
  private readonly log: Logger;
  private readonly stopper = new AbortController();
  private loop: Promise<void> | undefined;
  /** Every zone equal to the leader's at least once since start (readiness is sticky from then). */
  private caughtUp = false;
  private behind: string[] = [];
  private lastError: string | undefined;
  private warnedAt = 0;
  private waking: AbortController | undefined;
  /** Zones holding a copy that came from a leader since start: only these are compared by serial. */
  private readonly fromLeader = new Set<string>();

  constructor(opts: FollowerOptions) {
    this.opts = opts;
    this.log = opts.logger;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Stops refreshing. A transfer in flight is not waited for beyond `graceMs` (it has its own
   * timeout, 60 s by default, longer than a pod's grace period): the store refuses its copy once
   * closed, and the process exits without it.
   */
  async stop(graceMs = 2000): Promise<void> {
    this.stopper.abort();
    this.waking?.abort();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs).unref()));
    await Promise.race([this.loop, grace]);
    clearTimeout(timer);
  }

  /** Refreshes now instead of at the end of the period (the Lease named a new leader). */
  wake(): void {
    this.waking?.abort();
  }

  /** Undefined once caught up; else why this replica is not ready yet. */
  notReady(): string | undefined {
    if (this.caughtUp) return undefined;
    if (this.opts.leader() === undefined) {
      const holder = this.opts.holder?.() ?? '';
      // An older Hostwarden holding the Lease never publishes: docs/deploy.md, "Upgrading".
      return holder === '' ? 'waiting for the leader to publish its zones' : `waiting for the leader (${holder}) to publish its zones`;
    }
    const behind = this.behind.length === 0 ? 'its zones' : this.behind.slice(0, 5).join(', ');
    return `catching up with the leader (${behind})${this.lastError === undefined ? '' : `: ${this.lastError}`}`;
  }

  /** One pass over every zone (tests call it directly). */
  async refresh(): Promise<void> {
    const target = this.opts.leader();
    if (target === undefined) return void this.opts.lookAgain?.();
    const behind: string[] = [];
    // Of the whole pass: a zone that is current must not erase why an earlier one is behind.
    let lastError: string | undefined;
    for (const zone of this.opts.store.zones()) {
      if (this.stopper.signal.aborted) return;
      try {
        if (!(await this.follow(target, zone))) behind.push(zone);
      } catch (err) {
        behind.push(zone);
        lastError ??= errorMessage(err);
        this.warn(zone, target, err);
        if (err instanceof TransferError && err.transient) this.opts.lookAgain?.();
      }
    }
    this.behind = behind;
    this.lastError = lastError;
    if (behind.length === 0 && !this.caughtUp) {
      this.caughtUp = true;
      this.log.info({ leader: `${target.host}:${target.port}` }, 'caught up with the leader: every zone is current');
    }
  }

  private async run(): Promise<void> {
    while (!this.stopper.signal.aborted) {
      await this.refresh();
      this.waking = new AbortController();
      await sleep(this.opts.refreshMs, this.waking.signal);
    }
  }

  /** True when the zone is (now) at the leader's serial, or knowingly ahead of a new leader. */
  private async follow(target: Target, zone: string): Promise<boolean> {
    const tsig = this.opts.tsig === undefined ? {} : { tsig: this.opts.tsig };
    // A refused or unanswered SOA query (a wrong key, the leader gone) is a failed refresh too:
    // without this the metric's `failed` stays at 0 while the follower falls behind.
    const soa = await querySoa(target, zone, { timeoutMs: 1000, retries: 0, ...tsig }).catch((err: unknown) => {
      this.opts.events?.transferred?.(zone, 'failed');
      throw err;
    });
    const local = this.opts.store.content(zone);
    if (!this.fromLeader.has(zone)) {
      const full = await this.transfer(target, zone, undefined);
      await this.opts.store.replace(full.content);
      this.fromLeader.add(zone);
      this.log.debug({ zone, from: local.soa.serial, to: full.serial }, 'zone transferred in full from the leader');
      return full.serial === soa.serial || serialGreater(full.serial, soa.serial);
    }
    if (soa.serial === local.soa.serial) return true;
    if (this.caughtUp && !serialGreater(soa.serial, local.soa.serial)) {
      this.log.debug({ zone, ours: local.soa.serial, leader: soa.serial }, 'the leader is behind our serial; waiting for it to move past it');
      return true;
    }
    const result = await this.transfer(target, zone, serialGreater(soa.serial, local.soa.serial) ? local : undefined);
    if (result.kind !== 'current') await this.opts.store.replace(result.content);
    this.log.debug({ zone, kind: result.kind, from: local.soa.serial, to: result.serial, changes: result.stats.changes }, 'zone transferred from the leader');
    return result.serial === soa.serial || serialGreater(result.serial, soa.serial);
  }

  /** IXFR from our copy, or AXFR (no copy to build on, or the copies diverged). */
  private async transfer(target: Target, zone: string, current: ZoneContent | undefined): Promise<TransferResult> {
    const opts = {
      timeoutMs: this.opts.transferTimeoutMs ?? 60_000,
      maxBytes: this.opts.maxTransferBytes ?? 2 ** 30,
      ...(this.opts.tsig === undefined ? {} : { tsig: this.opts.tsig }),
    };
    try {
      const result = await transferZone(target, zone, current === undefined ? opts : { ...opts, current });
      this.opts.events?.transferred?.(zone, result.kind);
      return result;
    } catch (err) {
      if (current !== undefined && err instanceof TransferError && err.reason === 'diverged') {
        this.log.info({ zone, err: errorMessage(err) }, 'our copy diverged from the leader; transferring the whole zone');
        // As any full transfer: counted, a failure included.
        return this.transfer(target, zone, undefined);
      }
      this.opts.events?.transferred?.(zone, 'failed');
      throw err;
    }
  }

  /** Failures repeat every refresh while the leader is away: one warning a minute. */
  private warn(zone: string, target: Target, err: unknown): void {
    const now = Date.now();
    if (now - this.warnedAt < 60_000) return void this.log.debug({ zone, err: errorMessage(err) }, 'cannot follow the leader');
    this.warnedAt = now;
    this.log.warn({ zone, leader: `${target.host}:${target.port}`, err: errorMessage(err) }, 'cannot follow the leader; answering from our copy and retrying');
  }
}
