/**
 * Where AWS credentials come from, in the order an operator expects: static keys when given, a
 * named profile of the shared credentials file, else the SDK's default chain (environment, web
 * identity, container and instance metadata). An assume-role ARN wraps any of them: the base
 * credentials only ever call sts:AssumeRole, and every other call uses the role's session.
 */
import { fromIni, fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export interface AwsCredentialSettings {
  region: string;
  /** Overrides every AWS endpoint (tests, VPC endpoints, emulators). */
  endpointUrl?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  profile?: string;
  sharedCredentialsFile?: string;
  assumeRole?: string;
  assumeRoleExternalId?: string;
  /** Session name recorded in CloudTrail for assumed-role calls. */
  roleSessionName?: string;
}

export type CredentialSource = AwsCredentialIdentity | AwsCredentialIdentityProvider;

export function baseCredentials(s: AwsCredentialSettings): CredentialSource {
  if (s.accessKeyId !== undefined && s.accessKeyId !== '') {
    return {
      accessKeyId: s.accessKeyId,
      secretAccessKey: s.secretAccessKey ?? '',
      ...(s.sessionToken !== undefined && s.sessionToken !== '' ? { sessionToken: s.sessionToken } : {}),
    };
  }
  if ((s.profile !== undefined && s.profile !== '') || (s.sharedCredentialsFile !== undefined && s.sharedCredentialsFile !== '')) {
    return fromIni({
      ...(s.profile !== undefined && s.profile !== '' ? { profile: s.profile } : {}),
      ...(s.sharedCredentialsFile !== undefined && s.sharedCredentialsFile !== '' ? { filepath: s.sharedCredentialsFile } : {}),
    });
  }
  return fromNodeProviderChain();
}

/** The credentials every client uses: the base ones, or a role session assumed with them. */
export function credentialsFor(s: AwsCredentialSettings): CredentialSource {
  const base = baseCredentials(s);
  if (s.assumeRole === undefined || s.assumeRole === '') return base;
  return fromTemporaryCredentials({
    params: {
      RoleArn: s.assumeRole,
      RoleSessionName: s.roleSessionName ?? 'hostwarden',
      ...(s.assumeRoleExternalId !== undefined && s.assumeRoleExternalId !== '' ? { ExternalId: s.assumeRoleExternalId } : {}),
    },
    masterCredentials: base,
    clientConfig: {
      region: s.region,
      maxAttempts: 1,
      ...(s.endpointUrl !== undefined && s.endpointUrl !== '' ? { endpoint: s.endpointUrl } : {}),
    },
  });
}

/** A valid ARN of an IAM role (`arn:aws:iam::123456789012:role/name`, other partitions too). */
export function isRoleArn(value: string): boolean {
  return /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/.test(value);
}
