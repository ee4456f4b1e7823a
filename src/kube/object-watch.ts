/**
 * Watches one named object (a field-selector watch on `metadata.name`, which RBAC authorizes
 * against the object's name like a get) and reports each state it sees. A watch started without a
 * resourceVersion opens with the current object, so every (re)connection reports the present
 * state; a stream that ends or fails is opened again after a jittered backoff, until stopped.
 */
import { backoffDelay, sleep } from '../backoff.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { KubeClient, WatchEvent } from './client.ts';
import { isStatus } from './errors.ts';
import { collectionPath } from './resource.ts';
import type { KubeResource } from './resource.ts';

export interface ObjectWatchOptions {
  client: Pick<KubeClient, 'watch'>;
  resource: KubeResource;
  namespace: string;
  name: string;
  logger: Logger;
  /** The object as last seen; undefined once deleted. */
  onChange: (object: Record<string, unknown> | undefined) => void;
  /** A stream failed: what was seen may be stale until the next one opens. */
  onBroken?: () => void;
  /** Server-side end of each stream (the server closes it; reconnecting re-reads the object). Default 300 s. */
  timeoutSeconds?: number;
}

export class ObjectWatch {
  private readonly opts: ObjectWatchOptions;
  private readonly stopper = new AbortController();
  private loop: Promise<void> | undefined;
  private warnedForbidden = false;

  constructor(opts: ObjectWatchOptions) {
    this.opts = opts;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { client, resource, namespace, name, logger } = this.opts;
    const path = collectionPath(resource, namespace);
    const query = { fieldSelector: `metadata.name=${name}`, timeoutSeconds: this.opts.timeoutSeconds ?? 300 };
    let failures = 0;
    while (!this.stopper.signal.aborted) {
      try {
        await client.watch(path, query, (event) => this.event(event), this.stopper.signal);
        failures = 0;
      } catch (err) {
        failures++;
        this.opts.onBroken?.();
        // Info, not a warning: nothing is lost (the caller reads the object periodically), and
        // without any permission on the object the caller's own warning already says so.
        if (isStatus(err, 403) && !this.warnedForbidden) {
          this.warnedForbidden = true;
          logger.info(
            { resource: resource.plural, namespace, name, verb: 'watch', err: errorMessage(err) },
            `no permission to watch ${resource.plural} ${namespace}/${name}; reading it periodically instead`,
          );
        }
        logger.debug({ resource: resource.plural, namespace, name, failures, err: errorMessage(err) }, 'watch of one object failed; opening it again');
      }
      await sleep(backoffDelay({ initialMs: 200, maxMs: 10_000 }, Math.max(1, failures)), this.stopper.signal);
    }
  }

  private event(event: WatchEvent): void {
    if (event.type === 'ADDED' || event.type === 'MODIFIED') this.opts.onChange(event.object);
    else if (event.type === 'DELETED') this.opts.onChange(undefined);
  }
}
