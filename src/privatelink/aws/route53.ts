/** The Route53 port over the SDK: private zones, their records, VPC associations and authorizations. */
import {
  AssociateVPCWithHostedZoneCommand,
  ChangeResourceRecordSetsCommand,
  CreateHostedZoneCommand,
  CreateVPCAssociationAuthorizationCommand,
  DeleteHostedZoneCommand,
  DeleteVPCAssociationAuthorizationCommand,
  DisassociateVPCFromHostedZoneCommand,
  GetHostedZoneCommand,
  ListHostedZonesByNameCommand,
  ListResourceRecordSetsCommand,
  ListVPCAssociationAuthorizationsCommand,
} from '@aws-sdk/client-route-53';
import type { ResourceRecordSet, Route53Client, RRType, VPCRegion } from '@aws-sdk/client-route-53';
import type { RecordSet, Route53Port, Vpc } from './ports.ts';
import { SdkPort } from './call.ts';

const PAGE_LIMIT = 1000;

export function bareZoneId(id: string): string {
  return id.replace(/^\/?hostedzone\//, '');
}

const fqdn = (name: string): string => (name.endsWith('.') ? name : `${name}.`);
const bare = (name: string): string => name.replace(/\.$/, '').replace(/\\052/g, '*').toLowerCase();
const sdkVpc = (v: Vpc): { VPCId: string; VPCRegion: VPCRegion } => ({ VPCId: v.vpcId, VPCRegion: v.region as VPCRegion });

function toRecord(r: ResourceRecordSet): RecordSet {
  return {
    name: bare(r.Name ?? ''),
    type: r.Type ?? '',
    ...(r.TTL === undefined ? {} : { ttl: r.TTL }),
    ...(r.ResourceRecords === undefined || r.ResourceRecords.length === 0 ? {} : { values: r.ResourceRecords.map((v) => v.Value ?? '') }),
    ...(r.AliasTarget === undefined
      ? {}
      : {
          alias: {
            hostedZoneId: r.AliasTarget.HostedZoneId ?? '',
            dnsName: bare(r.AliasTarget.DNSName ?? ''),
            evaluateTargetHealth: r.AliasTarget.EvaluateTargetHealth === true,
          },
        }),
  };
}

function toSdk(r: RecordSet): ResourceRecordSet {
  return {
    Name: fqdn(r.name),
    Type: r.type as RRType,
    ...(r.alias === undefined
      ? { TTL: r.ttl ?? 300, ResourceRecords: (r.values ?? []).map((Value) => ({ Value })) }
      : { AliasTarget: { HostedZoneId: r.alias.hostedZoneId, DNSName: fqdn(r.alias.dnsName), EvaluateTargetHealth: r.alias.evaluateTargetHealth } }),
  };
}

export class SdkRoute53 extends SdkPort<Route53Client> implements Route53Port {
  async findPrivateZones(name: string): Promise<string[]> {
    const want = bare(name);
    const out: string[] = [];
    let dnsName: string | undefined = fqdn(want);
    let zoneId: string | undefined;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const res = await this.call('route53:ListHostedZonesByName', () =>
        this.client.send(
          new ListHostedZonesByNameCommand({
            MaxItems: 100,
            ...(dnsName === undefined ? {} : { DNSName: dnsName }),
            ...(zoneId === undefined ? {} : { HostedZoneId: zoneId }),
          }),
        ),
      );
      const zones = res.HostedZones ?? [];
      for (const z of zones) if (bare(z.Name ?? '') === want && z.Config?.PrivateZone === true && z.Id !== undefined) out.push(bareZoneId(z.Id));
      // Zones come sorted by name: once past `name`, there are no more to find.
      const last = zones[zones.length - 1];
      if (res.IsTruncated !== true || last === undefined || bare(last.Name ?? '') !== want) break;
      dnsName = res.NextDNSName;
      zoneId = res.NextHostedZoneId;
    }
    return out;
  }

  async createPrivateZone(name: string, vpc: Vpc, callerReference: string): Promise<string> {
    const res = await this.call('route53:CreateHostedZone', () =>
      this.client.send(
        new CreateHostedZoneCommand({
          Name: fqdn(name),
          CallerReference: callerReference,
          HostedZoneConfig: { PrivateZone: true, Comment: 'PrivateLink access to the cluster API (hostwarden)' },
          VPC: sdkVpc(vpc),
        }),
      ),
    );
    return bareZoneId(res.HostedZone?.Id ?? '');
  }

  async zoneVpcs(zoneId: string): Promise<Vpc[]> {
    const res = await this.call('route53:GetHostedZone', () => this.client.send(new GetHostedZoneCommand({ Id: zoneId })));
    return (res.VPCs ?? []).map((v) => ({ vpcId: v.VPCId ?? '', region: v.VPCRegion ?? '' }));
  }

  async listRecords(zoneId: string): Promise<RecordSet[]> {
    const out: RecordSet[] = [];
    let start: { name: string; type: RRType } | undefined;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const res = await this.call('route53:ListResourceRecordSets', () =>
        this.client.send(
          new ListResourceRecordSetsCommand({
            HostedZoneId: zoneId,
            MaxItems: 300,
            ...(start === undefined ? {} : { StartRecordName: start.name, StartRecordType: start.type }),
          }),
        ),
      );
      out.push(...(res.ResourceRecordSets ?? []).map(toRecord));
      if (res.IsTruncated !== true || res.NextRecordName === undefined || res.NextRecordType === undefined) break;
      start = { name: res.NextRecordName, type: res.NextRecordType };
    }
    return out;
  }

  async upsertRecord(zoneId: string, record: RecordSet): Promise<void> {
    await this.call('route53:ChangeResourceRecordSets', () =>
      this.client.send(
        new ChangeResourceRecordSetsCommand({ HostedZoneId: zoneId, ChangeBatch: { Changes: [{ Action: 'UPSERT', ResourceRecordSet: toSdk(record) }] } }),
      ),
    );
  }

  async deleteRecords(zoneId: string, records: RecordSet[]): Promise<void> {
    if (records.length === 0) return;
    await this.call('route53:ChangeResourceRecordSets', () =>
      this.client.send(
        new ChangeResourceRecordSetsCommand({
          HostedZoneId: zoneId,
          ChangeBatch: { Changes: records.map((r) => ({ Action: 'DELETE', ResourceRecordSet: toSdk(r) })) },
        }),
      ),
    );
  }

  async deleteZone(zoneId: string): Promise<void> {
    await this.call('route53:DeleteHostedZone', () => this.client.send(new DeleteHostedZoneCommand({ Id: zoneId })));
  }

  async associate(zoneId: string, vpc: Vpc): Promise<void> {
    await this.call('route53:AssociateVPCWithHostedZone', () =>
      this.client.send(new AssociateVPCWithHostedZoneCommand({ HostedZoneId: zoneId, VPC: sdkVpc(vpc) })),
    );
  }

  async disassociate(zoneId: string, vpc: Vpc): Promise<void> {
    await this.call('route53:DisassociateVPCFromHostedZone', () =>
      this.client.send(new DisassociateVPCFromHostedZoneCommand({ HostedZoneId: zoneId, VPC: sdkVpc(vpc) })),
    );
  }

  async listAuthorizations(zoneId: string): Promise<Vpc[]> {
    const out: Vpc[] = [];
    let token: string | undefined;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const res = await this.call('route53:ListVPCAssociationAuthorizations', () =>
        this.client.send(new ListVPCAssociationAuthorizationsCommand({ HostedZoneId: zoneId, ...(token === undefined ? {} : { NextToken: token }) })),
      );
      out.push(...(res.VPCs ?? []).map((v) => ({ vpcId: v.VPCId ?? '', region: v.VPCRegion ?? '' })));
      token = res.NextToken;
      if (token === undefined || token === '') break;
    }
    return out;
  }

  async createAuthorization(zoneId: string, vpc: Vpc): Promise<void> {
    await this.call('route53:CreateVPCAssociationAuthorization', () =>
      this.client.send(new CreateVPCAssociationAuthorizationCommand({ HostedZoneId: zoneId, VPC: sdkVpc(vpc) })),
    );
  }

  async deleteAuthorization(zoneId: string, vpc: Vpc): Promise<void> {
    await this.call('route53:DeleteVPCAssociationAuthorization', () =>
      this.client.send(new DeleteVPCAssociationAuthorizationCommand({ HostedZoneId: zoneId, VPC: sdkVpc(vpc) })),
    );
  }
}
