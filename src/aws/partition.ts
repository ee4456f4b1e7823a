/**
 * AWS partitions by region, one table for the whole code base: the ARN prefix, and where Route53
 * (a global service) signs in each partition. Region prefixes and Route53 regions are the ones in
 * the SDK's endpoint rules (partitions.json); partition.test.ts checks them against the SDK.
 */

interface PartitionFacts {
  /** Region-name prefix (`cn-`), '' for the commercial partition. */
  prefix: string;
  name: string;
  /** The region Route53's API is signed for in this partition. */
  route53Region: string;
}

// Longest prefixes first: `us-iso-` must not catch `us-isob-`.
const TABLE: readonly PartitionFacts[] = [
  { prefix: 'us-gov-', name: 'aws-us-gov', route53Region: 'us-gov-west-1' },
  { prefix: 'cn-', name: 'aws-cn', route53Region: 'cn-northwest-1' },
  { prefix: 'us-isob-', name: 'aws-iso-b', route53Region: 'us-isob-east-1' },
  { prefix: 'us-isof-', name: 'aws-iso-f', route53Region: 'us-isof-south-1' },
  { prefix: 'eu-isoe-', name: 'aws-iso-e', route53Region: 'eu-isoe-west-1' },
  { prefix: 'us-iso-', name: 'aws-iso', route53Region: 'us-iso-east-1' },
  { prefix: 'eusc-', name: 'aws-eusc', route53Region: 'eusc-de-east-1' },
];
const COMMERCIAL: PartitionFacts = { prefix: '', name: 'aws', route53Region: 'us-east-1' };

/** Every partition name, in partitions.json's order. */
export const PARTITIONS: readonly string[] = ['aws', 'aws-cn', 'aws-us-gov', 'aws-iso', 'aws-iso-b', 'aws-iso-e', 'aws-iso-f', 'aws-eusc'];

function factsOf(region: string | undefined): PartitionFacts {
  const r = region ?? '';
  return TABLE.find((p) => r.startsWith(p.prefix)) ?? COMMERCIAL;
}

/**
 * The AWS partition of a region (`aws` for any region no other partition claims). The upstream
 * ExternalDNS operator only knows the GovCloud regions and gives China or ISO clusters `arn:aws:…`,
 * which those partitions refuse.
 */
export function awsPartition(region: string | undefined): string {
  return factsOf(region).name;
}

/** The DNS suffix of a partition's service endpoints (`amazonaws.com`, `amazonaws.com.cn`). */
export function dnsSuffix(region: string | undefined): string {
  return awsPartition(region) === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
}

/** The region Route53 requests are signed for in partition `name`. */
export function route53RegionOfPartition(name: string): string {
  return (TABLE.find((p) => p.name === name) ?? COMMERCIAL).route53Region;
}

/** The region Route53 requests are signed for, for a cluster in `region`. */
export function route53RegionFor(region: string | undefined): string {
  return factsOf(region).route53Region;
}
