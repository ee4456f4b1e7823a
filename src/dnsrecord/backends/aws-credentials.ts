/**
 * The Secret shapes Gardener's provider-aws accepts for a DNSRecord (pkg/aws/secret.go
 * ReadCredentialsSecret with DNS keys allowed), turned into SDK credentials:
 * - access keys: `accessKeyID` / `AWS_ACCESS_KEY_ID` with `secretAccessKey` / `AWS_SECRET_ACCESS_KEY`.
 *   A `roleARN` beside them is ignored, as provider-aws ignores it (it names a workload identity role).
 * - workload identity (no access key): `token` (a JWT Gardener issues) and the role from `roleARN`,
 *   else from `config` (a WorkloadIdentityConfig document with `roleARN`), exchanged with
 *   sts:AssumeRoleWithWebIdentity, so the Secret holds no AWS key at all.
 * - Hostwarden's own addition: `AWS_ROLE_ARN` (with optional `externalID` / `AWS_EXTERNAL_ID`)
 *   beside access keys: the keys call sts:AssumeRole and Route53 is called as that role.
 * Region: `region` / `AWS_REGION`, used when spec.region is unset.
 */
import { fromWebToken } from '@aws-sdk/credential-providers';
import { parse as parseYaml } from 'yaml';
import { credentialsFor, isRoleArn } from '../../aws/credentials.ts';
import type { AwsCredentialSettings, CredentialSource } from '../../aws/credentials.ts';
import { errorMessage } from '../../errors.ts';
import { ConfigurationProblem, secretValue } from '../backend.ts';
import type { BackendContext } from '../backend.ts';

export const AWS_KEYS = {
  accessKeyId: ['accessKeyID', 'AWS_ACCESS_KEY_ID'],
  secretAccessKey: ['secretAccessKey', 'AWS_SECRET_ACCESS_KEY'],
  region: ['region', 'AWS_REGION'],
  token: ['token'],
  roleArn: ['roleARN'],
  workloadIdentityConfig: ['config'],
  assumeRoleArn: ['AWS_ROLE_ARN'],
  externalId: ['externalID', 'AWS_EXTERNAL_ID'],
} as const;

export type AwsAuth =
  | { kind: 'keys'; accessKeyId: string; secretAccessKey: string; assumeRole?: { arn: string; externalId?: string } }
  | { kind: 'workload-identity'; token: string; roleArn: string };

type SecretSource = Pick<BackendContext, 'secret' | 'secretName'>;

/** The credentials a Secret holds, in provider-aws's order: access keys first, else workload identity. */
export function readAwsAuth(ctx: SecretSource): AwsAuth {
  const accessKeyId = secretValue(ctx, AWS_KEYS.accessKeyId, false);
  if (accessKeyId !== undefined) {
    const secretAccessKey = secretValue(ctx, AWS_KEYS.secretAccessKey, true);
    const arn = secretValue(ctx, AWS_KEYS.assumeRoleArn, false);
    if (arn === undefined) return { kind: 'keys', accessKeyId, secretAccessKey };
    if (!isRoleArn(arn)) throw new ConfigurationProblem(`secret ${ctx.secretName}: ${JSON.stringify(arn)} is not an IAM role ARN`);
    const externalId = secretValue(ctx, AWS_KEYS.externalId, false);
    return { kind: 'keys', accessKeyId, secretAccessKey, assumeRole: { arn, ...(externalId === undefined ? {} : { externalId }) } };
  }
  const token = secretValue(ctx, AWS_KEYS.token, false);
  if (token === undefined)
    throw new ConfigurationProblem(`secret ${ctx.secretName} has no key "accessKeyID" or "AWS_ACCESS_KEY_ID", and no "token" for workload identity`);
  return { kind: 'workload-identity', token, roleArn: workloadIdentityRole(ctx) };
}

/** `roleARN`, else the `roleARN` of the WorkloadIdentityConfig in `config` (provider-aws's getRoleARN). */
function workloadIdentityRole(ctx: SecretSource): string {
  const direct = secretValue(ctx, AWS_KEYS.roleArn, false);
  if (direct !== undefined) return direct;
  const config = secretValue(ctx, AWS_KEYS.workloadIdentityConfig, false);
  if (config === undefined) throw new ConfigurationProblem(`secret ${ctx.secretName}: workload identity needs "roleARN" or a "config" with roleARN`);
  let doc: unknown;
  try {
    doc = parseYaml(config);
  } catch (err) {
    throw new ConfigurationProblem(`secret ${ctx.secretName}: "config" is not a WorkloadIdentityConfig: ${errorMessage(err)}`);
  }
  const role = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>)['roleARN'] : undefined;
  if (typeof role !== 'string' || role === '') throw new ConfigurationProblem(`secret ${ctx.secretName}: workloadIdentityConfig.roleARN is empty`);
  return role;
}

/** The rate-limit key: Route53's limit is per account, named by the access key or the role. */
export function credentialKey(auth: AwsAuth): string {
  if (auth.kind === 'workload-identity') return auth.roleArn;
  return auth.assumeRole?.arn ?? auth.accessKeyId;
}

/** The role Route53 is called as, for error messages (undefined for plain keys). */
export function roleOf(auth: AwsAuth): string | undefined {
  return auth.kind === 'workload-identity' ? auth.roleArn : auth.assumeRole?.arn;
}

export function credentialSource(auth: AwsAuth, opts: { region: string; endpointUrl: string; sessionName: string }): CredentialSource {
  const endpoint = opts.endpointUrl === '' ? {} : { endpoint: opts.endpointUrl };
  if (auth.kind === 'workload-identity') {
    return fromWebToken({
      roleArn: auth.roleArn,
      webIdentityToken: auth.token,
      roleSessionName: opts.sessionName,
      clientConfig: { region: opts.region, maxAttempts: 1, ...endpoint },
    });
  }
  const settings: AwsCredentialSettings = {
    region: opts.region,
    accessKeyId: auth.accessKeyId,
    secretAccessKey: auth.secretAccessKey,
    roleSessionName: opts.sessionName,
    ...(opts.endpointUrl === '' ? {} : { endpointUrl: opts.endpointUrl }),
  };
  if (auth.assumeRole !== undefined) {
    settings.assumeRole = auth.assumeRole.arn;
    if (auth.assumeRole.externalId !== undefined) settings.assumeRoleExternalId = auth.assumeRole.externalId;
  }
  return credentialsFor(settings);
}
