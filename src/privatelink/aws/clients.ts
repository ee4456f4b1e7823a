/**
 * Builds the AWS clients of one account from a Secret's keys (Hive's `aws_access_key_id` /
 * `aws_secret_access_key`), an optional role to assume with them (or with the controller's own
 * default chain), and a region. Accounts are cached by their credentials and region, so each
 * keeps one rate limiter and one set of sockets however often it is reconciled.
 */
import { sleep } from '../../backoff.ts';
import { createHash } from 'node:crypto';
import { EC2Client } from '@aws-sdk/client-ec2';
import { DescribeLoadBalancersCommand, ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { Route53Client } from '@aws-sdk/client-route-53';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { credentialsFor } from '../../aws/credentials.ts';
import type { AwsCredentialSettings } from '../../aws/credentials.ts';
import { RateLimiter } from '../../rate-limiter.ts';
import type { RetryPolicy } from '../../aws/retry.ts';
import type { Logger } from '../../log.ts';
import { SdkPort, awsCall } from './call.ts';
import { SdkEc2 } from './ec2.ts';
import type { AccountSpec, AwsAccount, Elbv2Port, LoadBalancer, StsPort } from './ports.ts';
import { SdkRoute53 } from './route53.ts';
import { AwsCallError } from '../errors.ts';

export interface AwsAccountsOptions {
  logger: Logger;
  /** One URL for every AWS service (the test emulator routes by the signed service name). */
  endpointUrl?: string | undefined;
  retries: number;
  requestsPerSecond: number;
  sleep?: (ms: number) => Promise<void>;
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

  private build(spec: AccountSpec): { account: AwsAccount; destroy: () => void } {
    const settings: AwsCredentialSettings = { region: spec.region, roleSessionName: 'hostwarden-privatelink' };
    const endpoint = this.opts.endpointUrl;
    if (endpoint !== undefined && endpoint !== '') settings.endpointUrl = endpoint;
    const keyId = spec.secret?.['aws_access_key_id'];
    if (keyId !== undefined && keyId !== '') {
      settings.accessKeyId = keyId.trim();
      settings.secretAccessKey = (spec.secret?.['aws_secret_access_key'] ?? '').trim();
      const token = spec.secret?.['aws_session_token'];
      if (token !== undefined && token !== '') settings.sessionToken = token.trim();
    }
    if (spec.assumeRole !== undefined) {
      settings.assumeRole = spec.assumeRole.roleArn;
      if (spec.assumeRole.externalId !== undefined && spec.assumeRole.externalId !== '') settings.assumeRoleExternalId = spec.assumeRole.externalId;
    }
    const credentials = credentialsFor(settings);
    const common = { credentials, maxAttempts: 1, ...(endpoint !== undefined && endpoint !== '' ? { endpoint } : {}) };
    const ec2 = new EC2Client({ region: spec.region, ...common });
    const elbv2 = new ElasticLoadBalancingV2Client({ region: spec.region, ...common });
    // Route53 is global; its API lives in us-east-1 for the commercial partition.
    const route53 = new Route53Client({ region: 'us-east-1', ...common });
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
