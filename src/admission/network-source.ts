/**
 * The policy followed live from a cluster's `config.openshift.io/v1` Network object. Read at start
 * and then every interval; an object with an invalid entry is reported and ignored, so the last
 * good policy stays in force (before any good one, externalIPs stay disabled: the safe default).
 */
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { AdmissionMetrics } from './metrics.ts';
import { PolicyError, describePolicy, emptyPolicy, policyFromNetworkObject } from './policy.ts';
import type { ExternalIPPolicy } from './policy.ts';

/** The one call this needs from a Kubernetes client (src/kube/client.ts KubeClient fits). */
export interface NetworkReader {
  request<T>(method: string, path: string): Promise<T>;
}

export interface NetworkPolicySourceOptions {
  client: NetworkReader;
  /** Name of the Network object, usually "cluster". */
  name: string;
  intervalMs: number;
  logger: Logger;
  metrics: AdmissionMetrics;
}

export class NetworkPolicySource {
  private readonly opts: NetworkPolicySourceOptions;
  private readonly path: string;
  private readonly origin: string;
  private policy: ExternalIPPolicy;
  private lastVersion = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(opts: NetworkPolicySourceOptions) {
    this.opts = opts;
    this.path = `/apis/config.openshift.io/v1/networks/${encodeURIComponent(opts.name)}`;
    this.origin = `networks.config.openshift.io/${opts.name}`;
    this.policy = emptyPolicy(`${this.origin} (not read yet)`);
  }

  current(): ExternalIPPolicy {
    return this.policy;
  }

  /** Reads once, then keeps reading every interval until stop(). */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.opts.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async refresh(): Promise<void> {
    const log = this.opts.logger;
    let obj: { metadata?: { resourceVersion?: string } };
    try {
      obj = await this.opts.client.request<{ metadata?: { resourceVersion?: string } }>('GET', this.path);
    } catch (err) {
      log.warn({ network: this.origin, err: errorMessage(err) }, 'cannot read the Network object; keeping the current externalIP policy');
      return;
    }
    const version = obj.metadata?.resourceVersion ?? '';
    if (version !== '' && version === this.lastVersion) return;
    try {
      this.policy = policyFromNetworkObject(obj, this.origin);
    } catch (err) {
      if (!(err instanceof PolicyError)) throw err;
      this.opts.metrics.policyErrors.inc();
      log.error(
        { network: this.origin, err: err.message, kept: describePolicy(this.policy) },
        'the Network object has an invalid externalIP range; keeping the last good policy',
      );
      return;
    } finally {
      this.lastVersion = version;
    }
    log.info({ network: this.origin, policy: describePolicy(this.policy) }, 'externalIP policy updated from the Network object');
  }
}
