/**
 * The aws-route53 type: Route53 through the provider's own API wrapper (rate limiter, retries,
 * errors naming the action and role). Credentials come from the DNSRecord's Secret in Gardener's
 * naming (`accessKeyID`, `secretAccessKey`, `region`, `roleARN`) or the SDK's (`AWS_ACCESS_KEY_ID`,
 * …). A CNAME to an AWS load balancer or CloudFront hostname becomes an alias A record, as
 * Gardener's provider-aws does, since alias records are free and follow the target's addresses.
 */
import { sleep } from '../../backoff.ts';
import type { Change, ResourceRecordSet, RRType } from '@aws-sdk/client-route-53';
import { credentialsFor, isRoleArn } from '../../aws/credentials.ts';
import type { AwsCredentialSettings } from '../../aws/credentials.ts';
import { awsErrorCode } from '../../aws/retry.ts';
import { quoteTxt } from '../../dns/master-file.ts';
import { ProviderError, errorMessage } from '../../errors.ts';
import { Route53Api, newRoute53Client } from '../../provider/aws/record-sets.ts';
import { canonicalHostedZone } from '../../provider/aws/record-sets.ts';
import { decodeRoute53Name } from '../../provider/aws/record-sets.ts';
import { toZone } from '../../provider/aws/record-sets.ts';
import { ConfigurationProblem, secretValue } from '../backend.ts';
import type { BackendContext, BackendZone, RecordSet, RecordSetBackend } from '../backend.ts';

export interface AwsBackendDefaults {
  /** Region when neither spec.region nor the Secret sets one. */
  region: string;
  /** Route53 and STS endpoint override (emulators, tests). */
  endpointUrl: string;
  /** Retries of one throttled or failed call before the reconcile gives up and requeues. */
  retries: number;
  sleep?: (ms: number) => Promise<void>;
}

export const AWS_KEYS = {
  accessKeyId: ['accessKeyID', 'AWS_ACCESS_KEY_ID'],
  secretAccessKey: ['secretAccessKey', 'AWS_SECRET_ACCESS_KEY'],
  region: ['region', 'AWS_REGION'],
  roleArn: ['roleARN', 'AWS_ROLE_ARN'],
  externalId: ['externalID', 'AWS_EXTERNAL_ID'],
} as const;

/** The Route53 record set for a DNSRecord's values. */
export function toRoute53RecordSet(rrset: RecordSet): ResourceRecordSet {
  const target = rrset.values[0];
  const aliasZone = rrset.type === 'CNAME' && target !== undefined ? canonicalHostedZone(target) : undefined;
  if (aliasZone !== undefined && target !== undefined) {
    const dnsName = target.endsWith('.') ? target : `${target}.`;
    return { Name: `${rrset.name}.`, Type: 'A', AliasTarget: { HostedZoneId: aliasZone, DNSName: dnsName, EvaluateTargetHealth: true } };
  }
  const values = rrset.values.map((v) => (rrset.type === 'TXT' ? quoteTxt(v) : v));
  return { Name: `${rrset.name}.`, Type: rrset.type as RRType, TTL: rrset.ttl, ResourceRecords: values.map((Value) => ({ Value })) };
}

export class AwsRoute53Backend implements RecordSetBackend {
  constructor(private readonly api: Route53Api) {}

  static build(ctx: BackendContext, defaults: AwsBackendDefaults): AwsRoute53Backend {
    const role = secretValue(ctx, AWS_KEYS.roleArn, false);
    if (role !== undefined && !isRoleArn(role)) throw new ConfigurationProblem(`secret ${ctx.secretName}: ${JSON.stringify(role)} is not an IAM role ARN`);
    const accessKeyId = secretValue(ctx, AWS_KEYS.accessKeyId, true);
    const secretAccessKey = secretValue(ctx, AWS_KEYS.secretAccessKey, true);
    const region = ctx.spec.region ?? secretValue(ctx, AWS_KEYS.region, false) ?? defaults.region;
    const settings: AwsCredentialSettings = { region, accessKeyId, secretAccessKey, roleSessionName: 'hostwarden-dnsrecord' };
    if (defaults.endpointUrl !== '') settings.endpointUrl = defaults.endpointUrl;
    if (role !== undefined) {
      settings.assumeRole = role;
      const externalId = secretValue(ctx, AWS_KEYS.externalId, false);
      if (externalId !== undefined) settings.assumeRoleExternalId = externalId;
    }
    const client = newRoute53Client({
      region,
      credentials: credentialsFor(settings),
      ...(defaults.endpointUrl === '' ? {} : { endpointUrl: defaults.endpointUrl }),
    });
    const api = new Route53Api({
      client,
      // Route53's 5 requests per second are per account: the role, else the access key, names it.
      limiter: ctx.limiters.for(`aws:${role ?? accessKeyId}`),
      retry: { retries: defaults.retries, baseDelayMs: 200, maxDelayMs: 5_000, sleep: defaults.sleep ?? ((ms: number) => sleep(ms)), random: Math.random },
      logger: ctx.logger,
      role,
    });
    return new AwsRoute53Backend(api);
  }

  async listZones(): Promise<BackendZone[]> {
    const zones = await this.api.listHostedZones();
    return zones
      .map(toZone)
      .filter((z) => z !== undefined)
      .map((z) => ({ id: z.id, name: z.name }));
  }

  async upsert(zoneId: string, rrset: RecordSet): Promise<void> {
    await this.api.changeRecordSets(zoneId, [{ Action: 'UPSERT', ResourceRecordSet: toRoute53RecordSet(rrset) }]);
  }

  async remove(zoneId: string, rrset: RecordSet): Promise<void> {
    const wanted = toRoute53RecordSet(rrset);
    try {
      await this.api.changeRecordSets(zoneId, [{ Action: 'DELETE', ResourceRecordSet: wanted }]);
    } catch (err) {
      const message = errorMessage(err);
      if (gone(err)) return;
      if (!/do not match the current values/.test(message)) throw err;
      // Someone changed the set since we wrote it: Route53 deletes only an exact copy, so read it.
      const current = (await this.api.listRecordSets(zoneId)).find(
        (rs) => decodeRoute53Name(rs.Name ?? '').toLowerCase() === wanted.Name && rs.Type === wanted.Type && rs.SetIdentifier === undefined,
      );
      if (current === undefined) return;
      const change: Change = { Action: 'DELETE', ResourceRecordSet: current };
      await this.api.changeRecordSets(zoneId, [change]).catch((e: unknown) => {
        if (!gone(e)) throw e;
      });
    }
  }

  close(): Promise<void> {
    this.api.close();
    return Promise.resolve();
  }
}

/** The record or its whole zone no longer exists: a delete has nothing left to do. */
function gone(err: unknown): boolean {
  const cause = err instanceof ProviderError ? err.cause : err;
  return awsErrorCode(cause) === 'NoSuchHostedZone' || /but it was not found/.test(errorMessage(err));
}
