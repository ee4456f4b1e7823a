/**
 * AWS specifics of the operand that depend on how the cluster hands out credentials, as the
 * upstream operator does them (pkg/operator/controller/externaldns/pod.go): the projected
 * service-account token (audience `openshift`) that an STS credentials file points at, and the
 * partition facts (ARN prefix, GovCloud caveats) derived from the cluster's region.
 */
import { awsPartition } from '../aws/partition.ts';
import type { ExternalDNSSpec } from './types.ts';

/** Upstream's names and paths, kept identical so a CredentialsRequest minted for either operator works. */
export const BOUND_SA_TOKEN = {
  volume: 'bound-sa-token',
  audience: 'openshift',
  expirationSeconds: 3600,
  path: 'token',
  mountPath: '/var/run/secrets/openshift/serviceaccount',
} as const;
export const BOUND_SA_TOKEN_FILE = `${BOUND_SA_TOKEN.mountPath}/${BOUND_SA_TOKEN.path}`;

type Obj = Record<string, unknown>;

function unb64(v: string | undefined): string {
  return v === undefined ? '' : Buffer.from(v, 'base64').toString('utf8');
}

/**
 * Whether a credentials Secret is an STS one: its `credentials` file names a web identity token
 * (what the Cloud Credential Operator writes in manual STS mode and `ccoctl` creates), or it holds a
 * bare `role_arn` key (from which the operator writes that file, see stsCredentialsFile).
 */
export function isStsSecret(data: Readonly<Record<string, string>>): boolean {
  return /^\s*web_identity_token_file\s*=/m.test(unb64(data['credentials'])) || unb64(data['role_arn']).trim() !== '';
}

/** The shared-credentials file for a Secret that only names the role: it reads the mounted token. */
export function stsCredentialsFile(roleArn: string): string {
  return `[default]\nrole_arn = ${roleArn}\nweb_identity_token_file = ${BOUND_SA_TOKEN_FILE}\n`;
}

/**
 * The token volume and its mount. Upstream mounts it for every AWS operand that has a credentials
 * Secret (the token is harmless when the file holds static keys); Hostwarden does the same.
 */
export function boundTokenVolume(): { volume: Obj; mount: Obj } {
  return {
    volume: {
      name: BOUND_SA_TOKEN.volume,
      projected: {
        sources: [
          {
            serviceAccountToken: {
              audience: BOUND_SA_TOKEN.audience,
              expirationSeconds: BOUND_SA_TOKEN.expirationSeconds,
              path: BOUND_SA_TOKEN.path,
            },
          },
        ],
      },
    },
    mount: { name: BOUND_SA_TOKEN.volume, mountPath: BOUND_SA_TOKEN.mountPath, readOnly: true },
  };
}

export function needsBoundToken(spec: ExternalDNSSpec, hasSecret: boolean): boolean {
  return spec.provider?.type === 'AWS' && hasSecret;
}

/** `arn:<partition>`, the prefix of the CredentialsRequest's hosted-zone resource. */
export function arnPrefix(region: string | undefined): string {
  return `arn:${awsPartition(region)}`;
}

/**
 * What the operand needs outside the `aws` partition. As upstream for GovCloud: `AWS_REGION` and
 * `--aws-prefer-cname` (GovCloud's Route53 cannot alias the load balancers). Hostwarden adds
 * `--aws-region`, because its `--aws-region` flag (default us-east-1) rather than `AWS_REGION`
 * picks the API endpoints, and does the same region hand-over for the other partitions (their
 * Route53 endpoints are regional), without `--aws-prefer-cname`, which is a GovCloud caveat only.
 */
export function partitionSettings(spec: ExternalDNSSpec, region: string | undefined): { env: Obj[]; args: string[] } {
  const partition = awsPartition(region);
  if (spec.provider?.type !== 'AWS' || region === undefined || partition === 'aws') return { env: [], args: [] };
  const args = [`--aws-region=${region}`];
  if (partition === 'aws-us-gov') args.push('--aws-prefer-cname');
  return { env: [{ name: 'AWS_REGION', value: region }], args };
}
