/**
 * The Route53 calls the provider makes, each through the account's rate limiter, retried on
 * throttling, and with errors turned into ProviderErrors naming the action (and role).
 * ListResourceRecordSets is paged by hand: the SDK has no paginator for it.
 */
import {
  ChangeResourceRecordSetsCommand,
  ListHostedZonesCommand,
  ListResourceRecordSetsCommand,
  ListTagsForResourceCommand,
  Route53Client,
} from '@aws-sdk/client-route-53';
import type { Change, HostedZone, ResourceRecordSet, RRType } from '@aws-sdk/client-route-53';
import { toProviderError } from '../../aws/errors.ts';
import type { CredentialSource } from '../../aws/credentials.ts';
import type { RateLimiter } from '../../rate-limiter.ts';
import { withRetry } from '../../aws/retry.ts';
import type { RetryPolicy } from '../../aws/retry.ts';
import type { Logger } from '../../log.ts';

export const PROVIDER_NAME = 'aws';

/** What the provider needs from Route53; Route53Api in production, fakes in unit tests. */
export interface Route53Port {
  listHostedZones(): Promise<HostedZone[]>;
  zoneTags(zoneId: string): Promise<Record<string, string>>;
  listRecordSets(zoneId: string): Promise<ResourceRecordSet[]>;
  changeRecordSets(zoneId: string, changes: Change[]): Promise<void>;
  /** Releases sockets kept alive by the HTTP client. */
  close?(): void;
}

export interface Route53ApiOptions {
  client: Route53Client;
  limiter: RateLimiter;
  retry: RetryPolicy;
  logger: Logger;
  role?: string | undefined;
}

export function newRoute53Client(opts: { region: string; endpointUrl?: string; credentials: CredentialSource }): Route53Client {
  return new Route53Client({
    region: opts.region,
    credentials: opts.credentials,
    // Retries happen in withRetry, behind the rate limiter, where they are counted.
    maxAttempts: 1,
    ...(opts.endpointUrl !== undefined && opts.endpointUrl !== '' ? { endpoint: opts.endpointUrl } : {}),
  });
}

/** Route53 hosted zone ids come as `/hostedzone/Z123`; filters and logs use the bare id. */
export function bareZoneId(id: string): string {
  return id.replace(/^\/?hostedzone\//, '');
}

export class Route53Api implements Route53Port {
  private readonly opts: Route53ApiOptions;

  constructor(opts: Route53ApiOptions) {
    this.opts = opts;
  }

  async listHostedZones(): Promise<HostedZone[]> {
    const zones: HostedZone[] = [];
    let marker: string | undefined;
    // Bounded: Route53 accounts hold at most a few thousand zones, 100 per page.
    for (let page = 0; page < 10_000; page++) {
      const out = await this.call('route53:ListHostedZones', undefined, (c) =>
        c.send(new ListHostedZonesCommand({ MaxItems: 100, ...(marker === undefined ? {} : { Marker: marker }) })),
      );
      zones.push(...(out.HostedZones ?? []));
      if (out.IsTruncated !== true || out.NextMarker === undefined) break;
      marker = out.NextMarker;
    }
    return zones;
  }

  async zoneTags(zoneId: string): Promise<Record<string, string>> {
    const out = await this.call('route53:ListTagsForResource', zoneId, (c) =>
      c.send(new ListTagsForResourceCommand({ ResourceType: 'hostedzone', ResourceId: bareZoneId(zoneId) })),
    );
    const tags: Record<string, string> = {};
    for (const t of out.ResourceTagSet?.Tags ?? []) if (t.Key !== undefined) tags[t.Key] = t.Value ?? '';
    return tags;
  }

  async listRecordSets(zoneId: string): Promise<ResourceRecordSet[]> {
    const sets: ResourceRecordSet[] = [];
    let start: { name: string; type: RRType; identifier?: string } | undefined;
    for (let page = 0; page < 100_000; page++) {
      const out = await this.call('route53:ListResourceRecordSets', zoneId, (c) =>
        c.send(
          new ListResourceRecordSetsCommand({
            HostedZoneId: zoneId,
            MaxItems: 300,
            ...(start === undefined
              ? {}
              : {
                  StartRecordName: start.name,
                  StartRecordType: start.type,
                  ...(start.identifier === undefined ? {} : { StartRecordIdentifier: start.identifier }),
                }),
          }),
        ),
      );
      sets.push(...(out.ResourceRecordSets ?? []));
      if (out.IsTruncated !== true || out.NextRecordName === undefined || out.NextRecordType === undefined) break;
      start = {
        name: out.NextRecordName,
        type: out.NextRecordType,
        ...(out.NextRecordIdentifier === undefined ? {} : { identifier: out.NextRecordIdentifier }),
      };
    }
    return sets;
  }

  async changeRecordSets(zoneId: string, changes: Change[]): Promise<void> {
    await this.call('route53:ChangeResourceRecordSets', zoneId, (c) =>
      c.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: zoneId, ChangeBatch: { Changes: changes } })),
    );
  }

  close(): void {
    this.opts.client.destroy();
  }

  private async call<T>(action: string, zone: string | undefined, send: (c: Route53Client) => Promise<T>): Promise<T> {
    const { client, limiter, retry, logger, role } = this.opts;
    try {
      return await withRetry(
        async () => {
          await limiter.take();
          return send(client);
        },
        retry,
        (err, attempt, delayMs) => logger.warn({ action, zone, attempt, delayMs, err: (err as Error).name }, 'Route53 call throttled or failed; retrying'),
      );
    } catch (err) {
      throw toProviderError(err, { provider: PROVIDER_NAME, action, role, zone: zone === undefined ? undefined : bareZoneId(zone) });
    }
  }
}
