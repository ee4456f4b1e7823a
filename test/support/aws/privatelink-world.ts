/**
 * A ready AWS landscape for PrivateLink tests, seeded straight into the emulators' state:
 * - a hub account with two inventory VPCs in the main region (`a` in zones a+b, `b` in zones b+c),
 *   an unrelated VPC, and one inventory VPC in a second region (zones a+b there);
 * - a user (cluster) account with one VPC and a subnet in each of zones a–d of the main region,
 *   and, unless `infraID: false`, the cluster's internal NLB `<infraID>-int` over zones a+b;
 * - an "other" account with a VPC in a third region, for cross-account zone associations.
 * Zone letters are the hub's names; `hubAzNames` remaps them to test zone-name mismatches.
 */
import type { LoadBalancer, Subnet, Vpc } from './ec2-model.ts';
import type { Identity } from './emulator.ts';
import type { AwsEmulators } from './start.ts';

export interface PrivateLinkWorldOptions {
  hubAccount?: string;
  userAccount?: string;
  otherAccount?: string;
  region?: string;
  secondRegion?: string;
  otherRegion?: string;
  /** The cluster's infra id; false for no NLB yet. Default `mycluster-x7k2p`. */
  infraID?: string | false;
  /** Zone names (in the user account) of the NLB's subnets. Default zones a and b. */
  nlbAzs?: string[];
  /** Describes that answer `provisioning` before the NLB is `active`. */
  nlbProvisioningDescribes?: number;
  /** The hub's own names for zone ids of the main region, e.g. `{ 'use1-az1': 'us-east-1c' }`. */
  hubAzNames?: Record<string, string>;
}

/** One entry of HiveConfig's `spec.awsPrivateLink.endpointVPCInventory`. */
export interface InventoryEntry {
  vpcID: string;
  region: string;
  subnets: { subnetID: string; availabilityZone: string }[];
}

export interface PrivateLinkWorld {
  hub: Identity;
  user: Identity;
  other: Identity;
  region: string;
  secondRegion: string;
  otherRegion: string;
  hubVpcs: { a: Vpc; b: Vpc; extra: Vpc; second: Vpc };
  /** `a1`, `a2` (VPC a), `b2`, `b3` (VPC b), `s1`, `s2` (second region): letter = zone, as the hub names it. */
  hubSubnets: Record<'a1' | 'a2' | 'b2' | 'b3' | 's1' | 's2', Subnet>;
  userVpc: Vpc;
  /** By zone name in the user account (`us-east-1a` …). */
  userSubnets: Record<string, Subnet>;
  otherVpc: Vpc;
  nlb: LoadBalancer | undefined;
  /** Another NLB `<infraID>-int` in the user account over subnets in `azs` (user zone names). */
  addNlb(infraID: string, azs?: string[], opts?: { provisioningDescribes?: number }): LoadBalancer;
  /** The hub VPCs as HiveConfig's endpoint VPC inventory (zone names as the hub sees them). */
  inventory(): InventoryEntry[];
}

export function seedPrivateLinkWorld(e: AwsEmulators, opts: PrivateLinkWorldOptions = {}): PrivateLinkWorld {
  const net = e.network;
  const region = opts.region ?? 'us-east-1';
  const secondRegion = opts.secondRegion ?? 'us-west-2';
  const otherRegion = opts.otherRegion ?? 'us-east-2';
  const hub = e.aws.addAccount(opts.hubAccount ?? '222222222222', 'hive');
  const user = e.aws.addAccount(opts.userAccount ?? '111111111111', 'installer');
  const other = e.aws.addAccount(opts.otherAccount ?? '333333333333', 'shared-dns');
  if (opts.hubAzNames !== undefined) net.setAzNames(hub.account, region, opts.hubAzNames);

  const a = net.addVpc(hub.account, region, { tags: [{ key: 'Name', value: 'hub-a' }] });
  const b = net.addVpc(hub.account, region, { tags: [{ key: 'Name', value: 'hub-b' }] });
  const extra = net.addVpc(hub.account, region, { tags: [{ key: 'Name', value: 'hub-unrelated' }] });
  const second = net.addVpc(hub.account, secondRegion, { tags: [{ key: 'Name', value: 'hub-second-region' }] });
  const hubSubnets = {
    a1: net.addSubnet(a.id, { az: `${region}a` }),
    a2: net.addSubnet(a.id, { az: `${region}b` }),
    b2: net.addSubnet(b.id, { az: `${region}b` }),
    b3: net.addSubnet(b.id, { az: `${region}c` }),
    s1: net.addSubnet(second.id, { az: `${secondRegion}a` }),
    s2: net.addSubnet(second.id, { az: `${secondRegion}b` }),
  };

  const userVpc = net.addVpc(user.account, region, { tags: [{ key: 'Name', value: 'cluster' }] });
  const userSubnets: Record<string, Subnet> = {};
  for (const letter of ['a', 'b', 'c', 'd']) userSubnets[`${region}${letter}`] = net.addSubnet(userVpc.id, { az: `${region}${letter}` });
  const otherVpc = net.addVpc(other.account, otherRegion, { tags: [{ key: 'Name', value: 'shared-dns' }] });

  const addNlb = (infraID: string, azs: string[] = [`${region}a`, `${region}b`], o: { provisioningDescribes?: number } = {}): LoadBalancer => {
    const subnets = azs.map((z) => {
      const s = userSubnets[z];
      if (s === undefined) throw new Error(`the user VPC has no subnet in ${z}`);
      return s.id;
    });
    return net.addLoadBalancer(
      user.account,
      region,
      `${infraID}-int`,
      subnets,
      o.provisioningDescribes === undefined ? {} : { provisioningDescribes: o.provisioningDescribes },
    );
  };
  const infraID = opts.infraID ?? 'mycluster-x7k2p';
  const nlb =
    infraID === false
      ? undefined
      : addNlb(infraID, opts.nlbAzs, opts.nlbProvisioningDescribes === undefined ? {} : { provisioningDescribes: opts.nlbProvisioningDescribes });

  const inventory = (): InventoryEntry[] =>
    [a, b, second].map((vpc) => ({
      vpcID: vpc.id,
      region: vpc.region,
      subnets: [...net.subnets.values()]
        .filter((s) => s.vpcId === vpc.id)
        .map((s) => ({ subnetID: s.id, availabilityZone: net.azName(hub.account, s.region, s.azId) })),
    }));

  return {
    hub,
    user,
    other,
    region,
    secondRegion,
    otherRegion,
    hubVpcs: { a, b, extra, second },
    hubSubnets,
    userVpc,
    userSubnets,
    otherVpc,
    nlb,
    addNlb,
    inventory,
  };
}
