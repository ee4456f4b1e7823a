/** The aws flags, validated into provider settings; every message names its flag. */
import type { FlagValues } from '../../config/config.ts';
import { isRoleArn } from '../../aws/credentials.ts';
import type { AwsCredentialSettings } from '../../aws/credentials.ts';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { ConfigError } from '../../errors.ts';
import { ROUTE53_LIMITS } from './batch.ts';
import type { BatchLimits } from './batch.ts';
import type { ZoneFilterSettings } from './zones.ts';

/** What the Route53 provider needs from the flags (and the DNSRecord backend from its Secret). */
export interface Route53Settings {
  filters: ZoneFilterSettings;
  limits: BatchLimits;
  batchIntervalMs: number;
  zonesCacheMs: number;
  recordsCacheMs: number;
  evaluateTargetHealth: boolean;
  preferCNAME: boolean;
  defaultTTL?: number;
}

export interface AwsProviderSettings {
  route53: Route53Settings;
  credentials: AwsCredentialSettings;
  /** --aws-profile values; with more than one, each profile gets its own client (credentials.profile is the first). */
  profiles: string[];
  retries: number;
  requestsPerSecond: number;
}

function positiveInt(flags: FlagValues, name: string, max: number): number {
  const v = flags.num(name);
  if (!Number.isInteger(v) || v < 1 || v > max) throw new ConfigError(`--${name} must be a whole number from 1 to ${max}, got ${v}`, `--${name}`);
  return v;
}

export function awsSettingsFromFlags(flags: FlagValues, domains: { include: readonly string[]; exclude: readonly string[] }): AwsProviderSettings {
  const zoneType = flags.str('aws-zone-type');
  if (zoneType !== '' && zoneType !== 'public' && zoneType !== 'private') throw new ConfigError('--aws-zone-type must be public or private', '--aws-zone-type');
  const role = flags.str('aws-assume-role');
  if (role !== '' && !isRoleArn(role))
    throw new ConfigError(`--aws-assume-role ${JSON.stringify(role)} is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)`, '--aws-assume-role');
  const externalId = flags.str('aws-assume-role-external-id');
  if (externalId !== '' && role === '') throw new ConfigError('--aws-assume-role-external-id needs --aws-assume-role', '--aws-assume-role-external-id');
  const accessKeyId = flags.str('aws-access-key-id');
  const secret = flags.str('aws-secret-access-key');
  if ((accessKeyId === '') !== (secret === ''))
    throw new ConfigError(
      '--aws-access-key-id and --aws-secret-access-key go together',
      accessKeyId === '' ? '--aws-access-key-id' : '--aws-secret-access-key',
    );
  const endpointUrl = flags.str('aws-endpoint-url');
  if (endpointUrl !== '' && !/^https?:\/\/[^/]+/.test(endpointUrl))
    throw new ConfigError('--aws-endpoint-url must be an http:// or https:// URL', '--aws-endpoint-url');
  const retries = flags.num('aws-api-retries');
  if (!Number.isInteger(retries) || retries < 0 || retries > 20) throw new ConfigError('--aws-api-retries must be from 0 to 20', '--aws-api-retries');
  const rps = flags.num('aws-requests-per-second');
  if (!Number.isFinite(rps) || rps < 0) throw new ConfigError('--aws-requests-per-second must be 0 or more', '--aws-requests-per-second');
  for (const tag of flags.list('aws-zone-tags')) {
    if (tag.startsWith('=')) throw new ConfigError(`--aws-zone-tags ${JSON.stringify(tag)} has no key`, '--aws-zone-tags');
  }
  const credentials: AwsCredentialSettings = { region: flags.str('aws-region') || 'us-east-1' };
  if (endpointUrl !== '') credentials.endpointUrl = endpointUrl;
  if (accessKeyId !== '') Object.assign(credentials, { accessKeyId, secretAccessKey: secret });
  const profiles = [...new Set(flags.list('aws-profile'))];
  if (profiles[0] !== undefined) credentials.profile = profiles[0];
  if (flags.str('aws-shared-credentials-file') !== '') credentials.sharedCredentialsFile = flags.str('aws-shared-credentials-file');
  if (role !== '') credentials.assumeRole = role;
  if (externalId !== '') credentials.assumeRoleExternalId = externalId;
  return {
    route53: {
      filters: {
        zoneType,
        zoneIds: flags.list('zone-id-filter'),
        zoneNames: flags.list('zone-name-filter'),
        tags: flags.list('aws-zone-tags'),
        domainFilter: new DomainFilter({ include: domains.include, exclude: domains.exclude }),
      },
      limits: {
        changes: positiveInt(flags, 'aws-batch-change-size', ROUTE53_LIMITS.changes),
        bytes: positiveInt(flags, 'aws-batch-change-size-bytes', ROUTE53_LIMITS.bytes),
        values: positiveInt(flags, 'aws-batch-change-size-values', ROUTE53_LIMITS.values),
      },
      batchIntervalMs: flags.num('aws-batch-change-interval'),
      zonesCacheMs: flags.num('aws-zones-cache-duration'),
      recordsCacheMs: flags.num('aws-records-cache-duration'),
      evaluateTargetHealth: flags.bool('aws-evaluate-target-health'),
      preferCNAME: flags.bool('aws-prefer-cname'),
    },
    credentials,
    profiles,
    retries,
    requestsPerSecond: rps,
  };
}
