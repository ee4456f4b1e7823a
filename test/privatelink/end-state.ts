/** What exists in each emulated account, in a form tests compare as a whole. */
import type { World } from './world.ts';

export interface EndState {
  /** User account endpoint services: id → NLB names, acceptance, principals. */
  services: { id: string; nlbs: string[]; acceptanceRequired: boolean; principals: string[]; tag: string | undefined }[];
  /** Hub endpoints: vpc, subnets, state, tag. */
  endpoints: { id: string; vpcId: string; subnets: number; state: string; serviceName: string; tag: string | undefined }[];
  /** Hub private zones with VPC ids, authorizations and their non-SOA/NS records. */
  zones: { id: string; name: string; vpcs: string[]; authorizations: number; records: string[] }[];
  /** Zones in the other accounts (none expected: the hub owns them all). */
  foreignZones: number;
}

const TAG = 'hive.openshift.io/private-link-access-for';

export function endState(w: World): EndState {
  const net = w.aws.network;
  const tagOf = (tags: readonly { key: string; value: string }[]): string | undefined => tags.find((x) => x.key === TAG)?.value;
  return {
    services: [...net.services.values()]
      .filter((s) => s.account === w.user.account)
      .map((s) => ({
        id: s.id,
        nlbs: s.nlbArns.map((a) => a.split('/')[2] ?? a),
        acceptanceRequired: s.acceptanceRequired,
        principals: [...s.allowedPrincipals].sort(),
        tag: tagOf(s.tags),
      })),
    endpoints: [...net.endpoints.values()]
      .filter((e) => e.account === w.hub.account)
      .map((e) => ({ id: e.id, vpcId: e.vpcId, subnets: e.subnetIds.length, state: e.state, serviceName: e.serviceName, tag: tagOf(e.tags) })),
    zones: w.aws.route53.zonesOf(w.hub.account).map((z) => ({
      id: z.id,
      name: z.name,
      vpcs: z.vpcs.map((v) => v.vpcId).sort(),
      authorizations: z.authorizations.length,
      records: [...z.sets.values()]
        .filter((r) => r.type !== 'SOA' && r.type !== 'NS')
        .map(
          (r) =>
            `${r.name} ${r.type} ${r.alias === undefined ? `${r.ttl ?? ''} ${r.values.join(',')}` : `alias ${r.alias.dnsName} ${r.alias.evaluateTargetHealth}`}`,
        ),
    })),
    foreignZones: w.aws.route53.zonesOf(w.user.account).length + w.aws.route53.zonesOf(w.other.account).length,
  };
}

/** Nothing left anywhere. */
export function isEmpty(s: EndState): boolean {
  return s.services.length === 0 && s.endpoints.length === 0 && s.zones.length === 0 && s.foreignZones === 0;
}

/** AWS operations that change something, from the emulator's log since `from`. */
export function writes(w: World, from = 0): string[] {
  return w.aws.aws.log
    .slice(from)
    .map((l) => l.operation)
    .filter((op) => !/^(Describe|List|Get)/.test(op));
}
