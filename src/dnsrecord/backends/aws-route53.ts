/**
 * The aws-route53 type: Route53 through the provider's own API wrapper (rate limiter, retries,
 * errors naming the action and role), written as Gardener's provider-aws writes it
 * (pkg/aws/client/client_route53.go): a CNAME to an AWS target it knows (load balancers,
 * CloudFront, Global Accelerator, API Gateway, VPC endpoints) becomes alias record(s), A, AAAA or
 * both as the `dns.gardener.cloud/ip-stack` annotation asks, since alias records are free and
 * follow the target's addresses. Credentials: see aws-credentials.ts.
 */
import { sleep } from '../../backoff.ts';
import type { Change, ResourceRecordSet, RRType } from '@aws-sdk/client-route-53';
import { awsErrorCode } from '../../aws/retry.ts';
import { quoteTxt } from '../../dns/master-file.ts';
import { ProviderError, errorMessage } from '../../errors.ts';
import { Route53Api, newRoute53Client } from '../../provider/aws/record-sets.ts';
import { decodeRoute53Name } from '../../provider/aws/record-sets.ts';
import { toZone } from '../../provider/aws/record-sets.ts';
import { ConfigurationProblem, secretValue } from '../backend.ts';
import type { BackendContext, BackendZone, RecordSet, RecordSetBackend } from '../backend.ts';
import type { IpStack } from '../types.ts';
import { gardenerAliasZone } from './aws-alias-zones.ts';
import { AWS_KEYS, credentialKey, credentialSource, readAwsAuth, roleOf } from './aws-credentials.ts';

export { AWS_KEYS } from './aws-credentials.ts';

export interface AwsBackendDefaults {
  /** Region when neither spec.region nor the Secret sets one. */
  region: string;
  /** Route53 and STS endpoint override (emulators, tests). */
  endpointUrl: string;
  /** Retries of one throttled or failed call before the reconcile gives up and requeues. */
  retries: number;
  sleep?: (ms: number) => Promise<void>;
}

/** The alias record types for an IP stack (provider-aws's GetAliasRecordTypes). */
export function aliasRecordTypes(stack: IpStack | undefined): RRType[] {
  if (stack === 'ipv6') return ['AAAA'];
  if (stack === 'dual-stack') return ['A', 'AAAA'];
  return ['A'];
}

/** The Route53 record set(s) for a DNSRecord's values (provider-aws's newResourceRecordSets). */
export function toRoute53RecordSets(rrset: RecordSet): ResourceRecordSet[] {
  const name = `${rrset.name}.`;
  const target = rrset.values[0];
  const aliasZone = rrset.type === 'CNAME' && target !== undefined ? gardenerAliasZone(target) : undefined;
  if (aliasZone !== undefined && target !== undefined) {
    return aliasRecordTypes(rrset.ipStack).map((Type) => ({
      Name: name,
      Type,
      AliasTarget: { HostedZoneId: aliasZone, DNSName: target, EvaluateTargetHealth: true },
    }));
  }
  const values = rrset.type === 'CNAME' ? rrset.values.slice(0, 1) : rrset.values.map((v) => (rrset.type === 'TXT' ? quoteTxt(v) : v));
  return [{ Name: name, Type: rrset.type as RRType, TTL: rrset.ttl, ResourceRecords: values.map((Value) => ({ Value })) }];
}

export class AwsRoute53Backend implements RecordSetBackend {
  constructor(private readonly api: Route53Api) {}

  static build(ctx: BackendContext, defaults: AwsBackendDefaults): AwsRoute53Backend {
    const auth = readAwsAuth(ctx);
    // provider-aws's getRegion: spec.region, then the Secret's, then the default.
    const region = ctx.spec.region ?? secretValue(ctx, AWS_KEYS.region, false) ?? defaults.region;
    const client = newRoute53Client({
      region,
      credentials: credentialSource(auth, { region, endpointUrl: defaults.endpointUrl, sessionName: 'hostwarden-dnsrecord' }),
      ...(defaults.endpointUrl === '' ? {} : { endpointUrl: defaults.endpointUrl }),
    });
    const api = new Route53Api({
      client,
      // Route53's 5 requests per second are per account: the role, else the access key, names it.
      limiter: ctx.limiters.for(`aws:${credentialKey(auth)}`),
      retry: { retries: defaults.retries, baseDelayMs: 200, maxDelayMs: 5_000, sleep: defaults.sleep ?? ((ms: number) => sleep(ms)), random: Math.random },
      logger: ctx.logger,
      role: roleOf(auth),
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
    await this.api
      .changeRecordSets(
        zoneId,
        toRoute53RecordSets(rrset).map((ResourceRecordSet) => ({ Action: 'UPSERT', ResourceRecordSet })),
      )
      .catch((err: unknown) => {
        throw asConfigurationProblem(err, `could not create or update DNS recordset in zone ${zoneId} with name ${rrset.name}, type ${rrset.type}`);
      });
  }

  /**
   * provider-aws's DeleteDNSRecordSet: a delete with the known values when they fully describe the
   * set; otherwise, or when that fails, the sets at the name are read and deleted as they are. A
   * CNAME to an AWS target is always read, since its alias types depend on the annotation at the
   * time of writing (and the CNAME may have been written before the target was known).
   */
  async remove(zoneId: string, rrset: RecordSet): Promise<void> {
    const potentialAlias = rrset.type === 'CNAME' && rrset.values[0] !== undefined && gardenerAliasZone(rrset.values[0]) !== undefined;
    if (rrset.values.length > 0 && rrset.ttl > 0 && !potentialAlias) {
      try {
        await this.api.changeRecordSets(
          zoneId,
          toRoute53RecordSets(rrset).map((ResourceRecordSet) => ({ Action: 'DELETE', ResourceRecordSet })),
        );
        return;
      } catch (err) {
        if (gone(err)) return;
        // Changed since it was written (Route53 deletes only an exact copy): read it below.
      }
    }
    let listed: ResourceRecordSet[];
    try {
      listed = await this.api.listRecordSets(zoneId);
    } catch (err) {
      if (gone(err)) return;
      throw err;
    }
    const current = listed.filter((rs) => sameSet(rs, rrset));
    if (current.length === 0) return;
    const changes: Change[] = current.map((ResourceRecordSet) => ({ Action: 'DELETE', ResourceRecordSet }));
    await this.api.changeRecordSets(zoneId, changes).catch((e: unknown) => {
      if (!gone(e)) throw asConfigurationProblem(e, `could not delete DNS recordset in zone ${zoneId} with name ${rrset.name}, type ${rrset.type}`);
    });
  }

  close(): Promise<void> {
    this.api.close();
    return Promise.resolve();
  }
}

/** The Route53 sets a DNSRecord owns: its name and type, and for a CNAME the alias A/AAAA sets too. */
function sameSet(rs: ResourceRecordSet, rrset: RecordSet): boolean {
  if (rs.SetIdentifier !== undefined) return false;
  if (
    decodeRoute53Name(rs.Name ?? '')
      .toLowerCase()
      .replace(/\.$/, '') !== rrset.name
  )
    return false;
  if (rs.Type === rrset.type) return true;
  return rrset.type === 'CNAME' && (rs.Type === 'A' || rs.Type === 'AAAA') && rs.AliasTarget !== undefined;
}

/**
 * provider-aws's wrapAWSClientError: a zone that does not exist, or a name the zone cannot hold,
 * is ERR_CONFIGURATION_PROBLEM (only a person can fix it); anything else keeps its own class.
 */
function asConfigurationProblem(err: unknown, what: string): unknown {
  const cause = err instanceof ProviderError ? err.cause : err;
  const message = errorMessage(err);
  if (awsErrorCode(cause) === 'NoSuchHostedZone' || /RRSet with DNS name \S+ is not permitted in zone \S+/.test(message))
    return new ConfigurationProblem(`${what}: ${message}`);
  return err;
}

/** The record or its whole zone no longer exists: a delete has nothing left to do. */
function gone(err: unknown): boolean {
  const cause = err instanceof ProviderError ? err.cause : err;
  return awsErrorCode(cause) === 'NoSuchHostedZone' || /but it was not found/.test(errorMessage(err));
}
