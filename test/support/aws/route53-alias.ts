/**
 * Route53's rules for alias record sets, as the Route53 developer guide documents them
 * ("Values for alias records", "Choosing between alias and non-alias records"):
 * - an alias set carries neither TTL nor ResourceRecords;
 * - an alias to an AWS service endpoint (Elastic Load Balancing, CloudFront, Global Accelerator,
 *   API Gateway, VPC interface endpoints) is of type A or AAAA only;
 * - its HostedZoneId must be the endpoint's own canonical hosted zone (for the regions this
 *   emulator knows; the ELB endpoints page of the AWS General Reference lists them).
 * Targets inside the emulator's own zones are not checked here.
 */
import type { RecordSet } from './route53-model.ts';

/** Canonical hosted zones from the AWS General Reference, for the regions the tests use. */
const SERVICE_ZONES: readonly { pattern: RegExp; zones: Readonly<Record<string, string>> | string }[] = [
  // Application and Classic Load Balancers: name-123.<region>.elb.amazonaws.com (dualstack. prefix too).
  {
    pattern: /\.([a-z0-9-]+)\.elb\.amazonaws\.com\.$/,
    zones: { 'us-east-1': 'Z35SXDOTRQ7X7K', 'us-west-2': 'Z1H1FL5HABSF5', 'eu-west-1': 'Z32O12XQLNTSW2', 'eu-central-1': 'Z215JYRZR1TBD5' },
  },
  // Network Load Balancers: name-123.elb.<region>.amazonaws.com.
  {
    pattern: /\.elb\.([a-z0-9-]+)\.amazonaws\.com\.$/,
    zones: { 'us-east-1': 'Z26RNL4JYFTOTI', 'us-west-2': 'Z18D5FSROUN65G', 'eu-west-1': 'Z2IFOLAFXWLO4F', 'eu-central-1': 'Z3F0SRJ5LGBH90' },
  },
  { pattern: /\.cloudfront\.net\.$/, zones: 'Z2FDTNDATAQYW2' },
  { pattern: /\.awsglobalaccelerator\.com\.$/, zones: 'Z2BJ6XQ5FK7U4H' },
  { pattern: /\.([a-z0-9-]+)\.vpce\.amazonaws\.com\.$/, zones: {} },
  { pattern: /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com\.$/, zones: {} },
];

export function aliasProblem(rs: RecordSet): string | undefined {
  const alias = rs.alias;
  if (alias === undefined) return undefined;
  const what = `[Name=${rs.name}, Type=${rs.type}, SetIdentifier=${rs.setIdentifier ?? 'null'}]`;
  if (rs.ttl !== undefined || rs.values.length > 0)
    return `Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords]], but found more than one in Change with ${what}`;
  const target = alias.dnsName;
  for (const { pattern, zones } of SERVICE_ZONES) {
    const m = pattern.exec(target);
    if (m === null) continue;
    if (rs.type !== 'A' && rs.type !== 'AAAA')
      return `Tried to create an alias that targets ${target}, type ${rs.type} in zone ${alias.hostedZoneId}, but the alias target name does not lie within the target zone`;
    const want = typeof zones === 'string' ? zones : zones[m[1] ?? ''];
    if (want !== undefined && want !== alias.hostedZoneId)
      return `Tried to create an alias that targets ${target}, type ${rs.type} in zone ${alias.hostedZoneId}, but the alias target name does not lie within the target zone`;
    return undefined;
  }
  return undefined;
}
