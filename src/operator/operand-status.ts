/**
 * The operand's side of ProviderAuthorized: `hostwarden run --status-externaldns NAME` writes, on
 * the ExternalDNS object that made it, whether the provider let it in — False with the role and
 * the refused action when AWS says AccessDenied, True after a successful sync. Other failures are
 * not about authorization and leave the condition alone. Writes happen only on change, one at a
 * time, and never fail the sync loop.
 */
import type { Config } from '../config/config.ts';
import { errorMessage } from '../errors.ts';
import type { KubeClient } from '../kube/client.ts';
import type { KubeEnv } from '../kube/client.ts';
import { findCondition, setCondition } from '../kube/conditions.ts';
import type { ConditionInput } from '../kube/conditions.ts';
import { isStatus } from '../kube/errors.ts';
import { objectPath } from '../kube/resource.ts';
import type { Logger } from '../log.ts';
import { CONDITION, EXTERNALDNSES, REASON } from './types.ts';
import type { ExternalDNS } from './types.ts';
import { kubeClientFromConfig } from '../kube/flags.ts';

export interface OperandStatusOptions {
  client: Pick<KubeClient, 'request'>;
  /** The ExternalDNS object to report on. */
  name: string;
  logger: Logger;
  now?: () => Date;
  /** Releases the client (its keep-alive sockets) at shutdown. */
  closeClient?: () => void;
}

/** The condition for a sync failure, or undefined when the failure is not a refusal. */
export function authorizationCondition(err: unknown): ConditionInput | undefined {
  const e = err as { code?: unknown; action?: unknown; role?: unknown };
  if (e === null || typeof e !== 'object' || e.code !== 'PROVIDER_ACCESS_DENIED') return undefined;
  const action = typeof e.action === 'string' ? e.action : 'unknown action';
  const who = typeof e.role === 'string' && e.role !== '' ? `role ${e.role}` : 'the configured credentials';
  return { type: CONDITION.providerAuthorized, status: 'False', reason: REASON.accessDenied, message: `${who} is not allowed ${action}: ${errorMessage(err)}` };
}

export const AUTHORIZED: ConditionInput = {
  type: CONDITION.providerAuthorized,
  status: 'True',
  reason: REASON.syncSucceeded,
  message: 'the provider accepted the last synchronisation',
};

export class OperandStatusReporter {
  private readonly opts: OperandStatusOptions;
  private readonly now: () => Date;
  private last: string | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(opts: OperandStatusOptions) {
    this.opts = opts;
    this.now = opts.now ?? (() => new Date());
  }

  static fromConfig(cfg: Config, deps: { logger: Logger; env?: KubeEnv | undefined }): OperandStatusReporter | undefined {
    const name = cfg.flags.str('status-externaldns');
    if (name === '') return undefined;
    const logger = deps.logger.child({ component: 'operand-status' });
    // The same cluster, context and timeout as run's sources.
    const client = kubeClientFromConfig(cfg, { logger, env: deps.env });
    return new OperandStatusReporter({ client, name, logger, closeClient: () => client.close() });
  }

  onSynced(): void {
    this.report(AUTHORIZED);
  }

  onSyncFailed(err: unknown): void {
    const c = authorizationCondition(err);
    if (c !== undefined) this.report(c);
  }

  /** Waits for writes in flight (before exiting on a start-up failure). */
  flush(): Promise<void> {
    return this.chain;
  }

  async close(): Promise<void> {
    await this.chain;
    this.opts.closeClient?.();
  }

  private report(c: ConditionInput): void {
    const key = `${c.status}\0${c.reason}\0${c.message}`;
    if (key === this.last) return;
    this.last = key;
    this.chain = this.chain
      .then(() => this.write(c))
      .catch((err: unknown) => {
        // Try again on the next report rather than believing this one landed.
        this.last = undefined;
        this.opts.logger.warn({ externaldns: this.opts.name, err: errorMessage(err) }, 'cannot write ProviderAuthorized');
      });
  }

  private async write(c: ConditionInput): Promise<void> {
    const path = objectPath(EXTERNALDNSES, '', this.opts.name);
    for (let attempt = 0; attempt < 3; attempt++) {
      const ed = await this.opts.client.request<ExternalDNS>('GET', path);
      const old = findCondition(ed.status?.conditions, c.type);
      if (old !== undefined && old.status === c.status && old.reason === c.reason && old.message === c.message) return;
      const conditions = setCondition(
        ed.status?.conditions,
        { ...c, ...(ed.metadata.generation === undefined ? {} : { observedGeneration: ed.metadata.generation }) },
        this.now(),
      );
      try {
        await this.opts.client.request('PATCH', `${path}/status`, {
          body: { metadata: { resourceVersion: ed.metadata.resourceVersion }, status: { conditions } },
          contentType: 'application/merge-patch+json',
        });
        this.opts.logger.info({ externaldns: this.opts.name, status: c.status, reason: c.reason }, 'ProviderAuthorized reported');
        return;
      } catch (err) {
        // The operator writes the same status: read again and retry on a conflict.
        if (!isStatus(err, 409)) throw err;
      }
    }
  }
}
