/**
 * Builds the AWS clients of one account from a Secret read as Hive reads it (secret-profile.ts),
 * an optional role to assume with those credentials (or, with no Secret, with the controller's own
 * default chain), and a region. Accounts are cached by their credentials and region, so each
 * keeps one rate limiter and one set of sockets however often it is reconciled.
 */
import { sleep } from '../../backoff.ts';
import { createHash } from 'node:crypto';
import { EC2Client } from '@aws-sdk/client-ec2';
import { DescribeLoadBalancersCommand, ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { Route53Client } from '@aws-sdk/client-route-53';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { CredentialSource } from '../../aws/credentials.ts';
import { route53RegionFor } from '../../aws/partition.ts';
import { RateLimiter } from '../../rate-limiter.ts';
import type { RetryPolicy } from '../../aws/retry.ts';
import type { Logger } from '../../log.ts';
import { SdkPort, awsCall } from './call.ts';
import { SdkEc2 } from './ec2.ts';
import type { AccountSpec, AwsAccount, Elbv2Port, LoadBalancer, StsPort } from './ports.ts';
import { SdkRoute53 } from './route53.ts';
import { AwsCallError } from '../errors.ts';
import { profileFromSecret } from './secret-profile.ts';
import type { RoleHop } from './secret-profile.ts';

const SESSION_NAME = 'hostwarden-privatelink';

export interface AwsAccountsOptions {
  logger: Logger;
  /** One URL for every AWS service (the test emulator routes by the signed service name). */
  endpointUrl?: string | undefined;
  retries: number;
  requestsPerSecond: number;
  sleep?: (ms: number) => Promise<void>;
  /** The controller's own identity, used only where Hive uses it (no Secret named); the SDK's default chain by default. */
  defaultCredentials?: CredentialSource;
}

class SdkElbv2 extends SdkPort<ElasticLoadBalancingV2Client> implements Elbv2Port {
  async findLoadBalancer(name: string): Promise<LoadBalancer | undefined> {
    try {
      const res = await this.call('elasticloadbalancing:DescribeLoadBalancers', () => this.client.send(new DescribeLoadBalancersCommand({ Names: [name] })));
      const lb = res.LoadBalancers?.find((l) => l.LoadBalancerName === name);
      return lb === undefined ? undefined : { arn: lb.LoadBalancerArn ?? '', name, state: lb.State?.Code ?? '' };
    } catch (err) {
      if (err instanceof AwsCallError && err.awsCode === 'LoadBalancerNotFound') return undefined;
      throw err;
    }
  }
}

class SdkSts extends SdkPort<STSClient> implements StsPort {
  async callerArn(): Promise<string> {
    const res = await this.call('sts:GetCallerIdentity', () => this.client.send(new GetCallerIdentityCommand({})));
    if (res.Arn === undefined || res.Arn === '') throw new AwsCallError('sts:GetCallerIdentity', new Error('no ARN in the answer'));
    return res.Arn;
  }
}

/**
 * One session for all clients of an account: each SDK client would otherwise assume the role (or
 * walk the default chain) on its own. Renewed five minutes before it expires; a failure is not kept.
 */
function shared(provider: AwsCredentialIdentityProvider): AwsCredentialIdentityProvider {
  let current: Promise<AwsCredentialIdentity> | undefined;
  return async () => {
    const held = current === undefined ? undefined : await current.catch(() => undefined);
    if (held !== undefined && (held.expiration === undefined || held.expiration.getTime() - Date.now() > 5 * 60_000)) return held;
    current = provider();
    return current;
  };
}

export class AwsAccounts {
  private readonly opts: AwsAccountsOptions;
  private readonly cache = new Map<string, { account: AwsAccount; destroy: () => void }>();

  constructor(opts: AwsAccountsOptions) {
    this.opts = opts;
  }

  /** The clients of the account `spec` names (the same object for the same spec). */
  account(spec: AccountSpec): AwsAccount {
    const key = createHash('sha256')
      .update(JSON.stringify([spec.region, spec.secret ?? null, spec.assumeRole ?? null]))
      .digest('hex');
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached.account;
    const built = this.build(spec);
    this.cache.set(key, built);
    return built.account;
  }

  close(): void {
    for (const { destroy } of this.cache.values()) destroy();
    this.cache.clear();
  }

  /**
   * The account's credentials: the Secret's profile (keys, then its chained roles) or the default
   * chain, then the spec's role. Throws SecretCredentialsError for an unusable Secret.
   */
  private credentials(spec: AccountSpec): CredentialSource {
    const endpoint = this.opts.endpointUrl;
    const hop = (base: CredentialSource, role: RoleHop): CredentialSource =>
      fromTemporaryCredentials({
        params: { RoleArn: role.roleArn, RoleSessionName: role.sessionName ?? SESSION_NAME, ...(role.externalId ? { ExternalId: role.externalId } : {}) },
        masterCredentials: base,
        clientConfig: { region: spec.region, maxAttempts: 1, ...(endpoint !== undefined && endpoint !== '' ? { endpoint } : {}) },
      });
    let creds: CredentialSource;
    if (spec.secret === undefined) {
      creds = this.opts.defaultCredentials ?? fromNodeProviderChain();
    } else {
      const profile = profileFromSecret(spec.secret);
      creds = profile.keys;
      for (const role of profile.roles) creds = hop(creds, role);
    }
    const role = spec.assumeRole;
    if (role !== undefined) creds = hop(creds, { roleArn: role.roleArn, ...(role.externalId ? { externalId: role.externalId } : {}) });
    return typeof creds === 'function' ? shared(creds) : creds;
  }

  private build(spec: AccountSpec): { account: AwsAccount; destroy: () => void } {
    const endpoint = this.opts.endpointUrl;
    const credentials = this.credentials(spec);
    const common = { credentials, maxAttempts: 1, ...(endpoint !== undefined && endpoint !== '' ? { endpoint } : {}) };
    const ec2 = new EC2Client({ region: spec.region, ...common });
    const elbv2 = new ElasticLoadBalancingV2Client({ region: spec.region, ...common });
    // Route53 is global per partition: signed for its home region (us-east-1, cn-northwest-1,
    // us-gov-west-1 …), from which the SDK also resolves the partition's endpoint (Hive needs a
    // China resolver for this; the v3 rules have it).
    const route53 = new Route53Client({ region: route53RegionFor(spec.region), ...common });
    const sts = new STSClient({ region: spec.region, ...common });
    const retry: RetryPolicy = {
      retries: this.opts.retries,
      baseDelayMs: 200,
      maxDelayMs: 10_000,
      sleep: this.opts.sleep ?? ((ms: number) => sleep(ms)),
      random: Math.random,
    };
    const call = awsCall({ limiter: new RateLimiter({ ratePerSecond: this.opts.requestsPerSecond }), retry, logger: this.opts.logger });
    return {
      account: { ec2: new SdkEc2(ec2, call), elbv2: new SdkElbv2(elbv2, call), route53: new SdkRoute53(route53, call), sts: new SdkSts(sts, call) },
      destroy: () => {
        ec2.destroy();
        elbv2.destroy();
        route53.destroy();
        sts.destroy();
      },
    };
  }
}
