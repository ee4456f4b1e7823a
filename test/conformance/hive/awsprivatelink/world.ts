/**
 * One Hive test case's world: the test API server with Hive's CRDs holding the case's
 * ClusterDeployment, ClusterProvisions, Secrets and HiveConfig, and the AWS emulator holding the AWS
 * state the case's mocks describe (hub, cluster and associated-VPC accounts), with Hive's ids where
 * the emulator lets a test choose them and a rename table for the ids AWS picks. Hive's tests give
 * the controller one mocked client for every account; here the hub keys (HiveConfig) and the
 * cluster keys (credentialsSecretRef) are Secrets, since Hostwarden never uses its pod identity
 * for the cluster account.
 */
import { KubeClient } from '../../../../src/kube/client.ts';
import { silentLogger } from '../../../../src/log.ts';
import { AwsAccounts } from '../../../../src/privatelink/aws/clients.ts';
import { PrivateLinkReconciler } from '../../../../src/privatelink/reconciler.ts';
import { installCrds, loadCrds } from '../../../support/crds/load.ts';
import type { Identity } from '../../../support/aws/emulator.ts';
import type { EndpointState } from '../../../support/aws/ec2-model.ts';
import { startAwsEmulators } from '../../../support/aws/start.ts';
import type { AwsEmulators } from '../../../support/aws/start.ts';
import { startTestApiServer } from '../../../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../../../support/kube-apiserver/server.ts';
import type { ExpectedCondition } from './cases.ts';

export const NS = 'test-namespace';
export const HIVE_NS = 'hive';
export const CD = 'test-cd';
export const TAG = 'hive.openshift.io/private-link-access-for';
export const HUB_PRINCIPAL = 'aws:iam:12345:hub-user';
const CLUSTER_NLB = 'aws:elb:12345:nlb-arn';
const REGION = 'us-east-1';

type Vpc = { vpcID: string; region: string };
export interface GivenCd {
  platform: { aws?: { region: string; privateLink?: { enabled: boolean; additionalAllowedPrincipals?: string[] } }; gcp?: { region: string } };
  conditions?: ExpectedCondition[];
  provisionRef?: string;
  clusterMetadata?: { infraID: string; adminKubeconfigSecretRef: string };
  status?: Record<string, unknown>;
  annotations?: Record<string, string>;
  deleted?: boolean;
  finalizers?: string[];
  preserveOnDelete?: boolean;
  installed?: boolean;
}
export interface GivenAws {
  loadBalancer?: { arn: string; state: string; availabilityZones: string[] };
  callerArn?: string;
  endpointService?: { id: string; name?: string; acceptanceRequired?: boolean; loadBalancers?: string[]; allowedPrincipals?: string[] };
  endpoints?: { id: string; vpcID: string; forCluster: boolean; state?: string }[];
  hostedZones?: { id: string; name: string; vpcs: Vpc[]; records?: { name: string; type: string; aliasTo: string }[] }[];
  errors?: { operation: string; code: string; message: string }[];
}
export interface Given {
  clusterDeployment: GivenCd;
  provisions: { name: string; stage: string; infraID?: string; prevInfraID?: string; adminKubeconfigSecretRef?: string }[];
  secrets: { name: string; apiServer: string }[];
  controllerConfig: {
    endpointVPCInventory?: { vpcID: string; region: string; subnets: { subnetID: string; availabilityZone: string }[] }[];
    associatedVPCs?: (Vpc & { credentialsSecretRef?: string })[];
    dnsRecordType?: 'Alias' | 'ARecord';
  };
  aws: GivenAws;
}

export interface CaseWorld {
  api: TestApiServer;
  aws: AwsEmulators;
  hub: Identity;
  user: Identity;
  other: Identity;
  infraID: string;
  /** Emulator value → Hive's placeholder. */
  rename: Map<string, string>;
  /** Ids present before the reconcile (to tell created endpoints and zones apart). */
  seeded: Set<string>;
  reconciler: PrivateLinkReconciler;
  stop(): Promise<void>;
}

/** Principals of Hive's form `aws:iam:12345:<user>` as ARNs AWS accepts. */
export function principalArn(p: string, w: Pick<CaseWorld, 'hub' | 'rename'>): string {
  if (p === HUB_PRINCIPAL) return w.hub.arn;
  const arn = `arn:aws:iam::444444444444:user/${p.split(':').pop() ?? p}`;
  w.rename.set(arn, p);
  return arn;
}

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

export function kubeconfigText(server: string): string {
  return `apiVersion: v1\nclusters:\n- cluster:\n    server: ${server}\n  name: test-cluster\ncontexts:\n- context:\n    cluster: test-cluster\n    user: admin\n  name: admin\ncurrent-context: admin\nkind: Config\nusers:\n- name: admin\n`;
}

export function infraIDOf(g: Given): string {
  return g.clusterDeployment.clusterMetadata?.infraID ?? g.provisions.find((p) => p.infraID !== undefined)?.infraID ?? 'test-cd-1234';
}

export async function startCaseWorld(g: Given): Promise<CaseWorld> {
  const api = await startTestApiServer({ namespaces: [NS, HIVE_NS], bookmarkIntervalMs: 200 });
  await installCrds(api, loadCrds('hive'));
  const aws = await startAwsEmulators();
  const hub = aws.aws.addAccount('222222222222', 'hub-user');
  const user = aws.aws.addAccount('111111111111', 'installer');
  const other = aws.aws.addAccount('333333333333', 'hive1');
  const logger = silentLogger();
  const accounts = new AwsAccounts({ logger, endpointUrl: aws.url, retries: 0, requestsPerSecond: 0, sleep: async () => undefined });
  const raw = new KubeClient({ config: api.kubeConfig(), logger });
  const reconciler = new PrivateLinkReconciler({
    client: raw,
    accounts: (spec) => accounts.account(spec),
    hiveNamespace: HIVE_NS,
    logger,
    sleep: async () => undefined,
    endpointWait: { attempts: 3, delayMs: 0 },
  });
  const w: CaseWorld = {
    api,
    aws,
    hub,
    user,
    other,
    infraID: infraIDOf(g),
    rename: new Map([[hub.arn, HUB_PRINCIPAL]]),
    seeded: new Set(),
    reconciler,
    stop: async () => {
      accounts.close();
      raw.close();
      await aws.stop();
      await api.stop();
    },
  };
  seedNetwork(w, g);
  seedServiceAndEndpoints(w, g.aws);
  seedZones(w, g.aws);
  for (const f of g.aws.errors ?? []) aws.aws.fail({ code: f.code, message: f.message, operations: [f.operation], count: 1, status: 400 });
  seedKube(w, g);
  return w;
}

/** Inventory and associated VPCs (Hive's ids), the cluster's VPC and NLB. */
function seedNetwork(w: CaseWorld, g: Given): void {
  const net = w.aws.network;
  const vpc = (account: string, v: Vpc): void => {
    if (!net.vpcs.has(v.vpcID)) net.addVpc(account, v.region, { id: v.vpcID });
  };
  for (const v of g.controllerConfig.endpointVPCInventory ?? []) {
    vpc(w.hub.account, v);
    for (const s of v.subnets) if (!net.subnets.has(s.subnetID)) net.addSubnet(v.vpcID, { az: s.availabilityZone, id: s.subnetID });
  }
  for (const v of g.controllerConfig.associatedVPCs ?? []) vpc(v.credentialsSecretRef === undefined ? w.hub.account : w.other.account, v);
  for (const z of g.aws.hostedZones ?? []) for (const v of z.vpcs) vpc(w.hub.account, v);
  const lb = g.aws.loadBalancer;
  if (lb === undefined) return;
  const userVpc = net.addVpc(w.user.account, REGION).id;
  const subnets = lb.availabilityZones.map((az) => net.addSubnet(userVpc, { az }).id);
  const made = net.addLoadBalancer(w.user.account, REGION, `${w.infraID}-int`, subnets);
  made.state = lb.state as typeof made.state;
  w.rename.set(made.arn, CLUSTER_NLB);
  w.rename.set(`${w.infraID}-int`, CLUSTER_NLB);
}

function seedServiceAndEndpoints(w: CaseWorld, a: GivenAws): void {
  const net = w.aws.network;
  const needsService = a.endpointService !== undefined || (a.endpoints ?? []).some((e) => e.forCluster);
  const svc = a.endpointService ?? { id: 'vpce-svc-12345' };
  const svcName = svc.name ?? 'vpce-svc-12345.vpc.amazon.com';
  const arnOf = (hive: string): string => {
    const known = [...w.rename].find(([, v]) => v === hive)?.[0];
    if (known !== undefined && known.startsWith('arn:')) return known;
    const extra = net.addLoadBalancer(w.user.account, REGION, 'not-cluster-nlb', [...net.loadBalancers.values()][0]?.subnetIds ?? []);
    w.rename.set(extra.arn, hive);
    return extra.arn;
  };
  if (needsService) {
    net.services.set(svc.id, {
      id: svc.id,
      name: svcName,
      account: w.user.account,
      region: REGION,
      tags: [{ key: TAG, value: w.infraID }],
      acceptanceRequired: svc.acceptanceRequired ?? false,
      nlbArns: (svc.loadBalancers ?? [CLUSTER_NLB]).filter(() => a.loadBalancer !== undefined).map(arnOf),
      allowedPrincipals: (svc.allowedPrincipals ?? []).map((p) => principalArn(p, w)),
    });
    w.seeded.add(svc.id);
  }
  for (const e of a.endpoints ?? []) {
    net.endpoints.set(e.id, {
      id: e.id,
      account: w.hub.account,
      region: REGION,
      vpcId: e.vpcID,
      serviceName: e.forCluster ? svcName : 'com.amazonaws.vpce.us-east-1.vpce-svc-someoneelse',
      serviceId: e.forCluster ? svc.id : 'vpce-svc-someoneelse',
      subnetIds: [],
      eniIds: [],
      privateDnsEnabled: false,
      state: (e.state ?? 'available') as EndpointState,
      pendingDescribes: 0,
      outcome: (e.state ?? 'available') as EndpointState,
      dnsPrefix: e.id,
      createdAt: new Date(),
      tags: e.forCluster ? [{ key: TAG, value: w.infraID }] : [],
    });
    w.seeded.add(e.id);
  }
}

function seedZones(w: CaseWorld, a: GivenAws): void {
  for (const z of a.hostedZones ?? []) {
    const zone = w.aws.route53.createZone(z.name, {
      id: z.id,
      private: true,
      account: w.hub.account,
      vpcs: z.vpcs.map((v) => ({ vpcId: v.vpcID, region: v.region })),
    });
    for (const r of z.records ?? []) {
      w.aws.route53.put(zone, {
        name: `${r.name.replace(/\.$/, '')}.`,
        type: r.type,
        values: [],
        // Hive's mocks name the target "vpc.."; Route53 keeps a valid name, with one trailing dot.
        alias: { hostedZoneId: 'Z7HUB22UULQXV', dnsName: `${r.aliasTo.replace(/\.+$/, '')}.`, evaluateTargetHealth: false },
      });
    }
    w.seeded.add(z.id);
  }
}

function secret(api: TestApiServer, namespace: string, name: string, data: Record<string, string>): void {
  api.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  } as never);
}

function seedKube(w: CaseWorld, g: Given): void {
  const keys = (id: Identity): Record<string, string> => ({ aws_access_key_id: id.accessKeyId, aws_secret_access_key: id.secretAccessKey });
  secret(w.api, HIVE_NS, 'hub-creds', keys(w.hub));
  secret(w.api, HIVE_NS, 'hivev1-creds', keys(w.other));
  secret(w.api, NS, 'cluster-creds', keys(w.user));
  for (const s of g.secrets) secret(w.api, NS, s.name, { kubeconfig: kubeconfigText(s.apiServer) });
  const cc = g.controllerConfig;
  const awsPrivateLink = {
    credentialsSecretRef: { name: 'hub-creds' },
    endpointVPCInventory: cc.endpointVPCInventory ?? [],
    ...(cc.associatedVPCs === undefined
      ? {}
      : {
          associatedVPCs: cc.associatedVPCs.map((v) => ({
            vpcID: v.vpcID,
            region: v.region,
            ...(v.credentialsSecretRef === undefined ? {} : { credentialsSecretRef: { name: v.credentialsSecretRef } }),
          })),
        }),
    ...(cc.dnsRecordType === undefined ? {} : { dnsRecordType: cc.dnsRecordType }),
  };
  w.api.create({ apiVersion: 'hive.openshift.io/v1', kind: 'HiveConfig', metadata: { name: 'hive' }, spec: { awsPrivateLink } } as never);
  for (const p of g.provisions) {
    w.api.create({
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterProvision',
      metadata: { name: p.name, namespace: NS, labels: { 'hive.openshift.io/cluster-deployment-name': CD } },
      spec: {
        clusterDeploymentRef: { name: CD },
        stage: p.stage,
        attempt: 0,
        podSpec: { containers: [] },
        ...(p.infraID === undefined ? {} : { infraID: p.infraID }),
        ...(p.prevInfraID === undefined ? {} : { prevInfraID: p.prevInfraID }),
        ...(p.adminKubeconfigSecretRef === undefined ? {} : { adminKubeconfigSecretRef: { name: p.adminKubeconfigSecretRef } }),
      },
    } as never);
  }
  createCd(w, g.clusterDeployment);
}

/** Hive's placeholder principals in spec and status, as ARNs AWS accepts. */
function arnsIn<T>(w: CaseWorld, value: T): T {
  return JSON.parse(JSON.stringify(value ?? null).replace(/aws:iam:12345:[\w-]+/g, (p) => principalArn(p, w))) as T;
}

function createCd(w: CaseWorld, given: GivenCd): void {
  const c = arnsIn(w, given);
  const aws = c.platform.aws === undefined ? undefined : { ...c.platform.aws, credentialsSecretRef: { name: 'cluster-creds' } };
  const status: Record<string, unknown> = {};
  if (c.conditions !== undefined) status['conditions'] = c.conditions.map((x) => ({ reason: '', message: '', ...x }));
  if (c.provisionRef !== undefined) status['provisionRef'] = { name: c.provisionRef };
  if (c.status !== undefined) status['platformStatus'] = { aws: { privateLink: c.status } };
  w.api.create({
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name: CD, namespace: NS, annotations: c.annotations ?? {}, finalizers: c.finalizers ?? [] },
    spec: {
      clusterName: CD,
      baseDomain: 'example.com',
      installed: c.installed ?? false,
      preserveOnDelete: c.preserveOnDelete ?? false,
      platform: aws === undefined ? c.platform : { aws },
      ...(c.clusterMetadata === undefined
        ? {}
        : {
            clusterMetadata: {
              clusterID: `${c.clusterMetadata.infraID}-id`,
              infraID: c.clusterMetadata.infraID,
              adminKubeconfigSecretRef: { name: c.clusterMetadata.adminKubeconfigSecretRef },
            },
          }),
    },
    status,
  } as never);
  if (c.deleted === true) w.api.delete({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', namespace: NS, name: CD });
}
