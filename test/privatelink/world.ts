/**
 * One PrivateLink test world: the test API server with Hive's CRDs (test/support/crds/hive), the
 * AWS emulator with a hub, a cluster (user) and an associated-VPC account, the hub's endpoint VPC
 * inventory, a cluster NLB, Secrets, HiveConfig and a ClusterDeployment — and the reconciler,
 * driven key by key so tests can assert the end state in every account after each run.
 */
import { CreateVpcEndpointCommand, EC2Client } from '@aws-sdk/client-ec2';
import { KubeClient } from '../../src/kube/client.ts';
import { silentLogger } from '../../src/log.ts';
import type { Logger } from '../../src/log.ts';
import { awsPartition } from '../../src/aws/partition.ts';
import { AwsAccounts } from '../../src/privatelink/aws/clients.ts';
import { PrivateLinkReconciler } from '../../src/privatelink/reconciler.ts';
import type { ReconcileResult } from '../../src/kube/work-queue.ts';
import type { ClusterDeployment, HiveConfig } from '../../src/privatelink/types.ts';
import { installCrds, loadCrds } from '../support/crds/load.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import type { Identity } from '../support/aws/emulator.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

export const REGION = 'us-east-1';
export const NS = 'clusters';
export const HIVE_NS = 'hive';
export const CD_NAME = 'mycluster';
export const KEY = `${NS}/${CD_NAME}`;
export const API_HOST = 'api.mycluster.example.com';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

export function kubeconfigText(host: string): string {
  return `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://${host}:6443\ncontexts:\n- name: admin\n  context: {cluster: c, user: admin}\ncurrent-context: admin\nusers:\n- name: admin\n  user: {token: x}\n`;
}

/** Every Kubernetes request the controller made, as `VERB path`, for the RBAC check. */
export type Recorded = Set<string>;

export interface World {
  api: TestApiServer;
  aws: AwsEmulators;
  hub: Identity;
  user: Identity;
  other: Identity;
  /** Hub inventory VPCs (vpc-a: AZs a,b; vpc-b: AZs b,c) and the associated VPC of `other`. */
  vpcs: { a: string; b: string; other: string; hubExtra: string };
  subnets: Record<string, string>;
  client: KubeClient;
  accounts: AwsAccounts;
  reconciler: PrivateLinkReconciler;
  recorded: Recorded;
  reconcile(): Promise<ReconcileResult>;
  cd(): ClusterDeployment;
  patchCd(mutate: (cd: ClusterDeployment) => void): void;
  hiveConfig(mutate: (h: HiveConfig) => void): void;
  addNlb(infraID: string, azs?: string[], opts?: { provisioningDescribes?: number }): void;
  /** Creates the cluster's ClusterDeprovision (named like the ClusterDeployment), as Hive does on deletion. */
  deprovision(): void;
  /** Another installed cluster with PrivateLink (own NLB, kubeconfig and API host); returns its key. */
  addCluster(name: string, infraID: string): string;
  /**
   * An endpoint of `from`'s account (a VPC of its own in the region, zone use1-az1) to the
   * cluster's endpoint service, made through the SDK as that account (so the service's allowed
   * principals decide); returns its id.
   */
  connectEndpoint(from: Identity): Promise<string>;
  /** Creates (or replaces) a Secret with these data keys. */
  secret(namespace: string, name: string, data: Record<string, string>): void;
  /** Moves the reconciler's clock (shouldSync measures from Ready's lastProbeTime). */
  advance(ms: number): void;
  stop(): Promise<void>;
}

export interface WorldOptions {
  infraID?: string;
  dnsRecordType?: 'Alias' | 'ARecord';
  installed?: boolean;
  nlb?: boolean;
  associateOther?: boolean;
  /** Retries of failed AWS calls (default 0: a failure reaches the reconciler at once). */
  retries?: number;
  /** The reconciler's logger (default: silent). */
  logger?: Logger;
  /** Whose identity the controller's default chain gives (none by default: using it fails). */
  defaultIdentity?: 'hub' | 'user' | 'other';
  /** Check every SigV4 signature against the key's secret. */
  verifySignatures?: boolean;
  /** The cluster's (and the inventory's) region, us-east-1 by default; every account is in its partition. */
  region?: string;
  /**
   * Run the controller's first reconcile, which (as Hive's) only initializes the two conditions to
   * Unknown/Initialized and returns (default true). False starts from the bare ClusterDeployment.
   */
  initialized?: boolean;
}

export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const api = await startTestApiServer({ namespaces: [NS, HIVE_NS], bookmarkIntervalMs: 200 });
  // Hive's own CRDs, so objects are pruned and validated as a Hive cluster would.
  await installCrds(api, loadCrds('hive'));
  const aws = await startAwsEmulators();
  aws.aws.route53HomeRegion = true;
  const region = opts.region ?? REGION;
  const az = (letter: string): string => `${region}${letter}`;
  const partition = { partition: awsPartition(region) };
  const hub = aws.aws.addAccount('222222222222', 'hive', partition);
  const user = aws.aws.addAccount('111111111111', 'installer', partition);
  const other = aws.aws.addAccount('333333333333', 'shared-dns', partition);
  const otherRegion = opts.region === undefined ? 'us-east-2' : region;
  const net = aws.network;

  // The hub's inventory: vpc-a in AZs a and b, vpc-b in AZs b and c; an unrelated hub VPC too.
  const a = net.addVpc(hub.account, region).id;
  const b = net.addVpc(hub.account, region).id;
  const hubExtra = net.addVpc(hub.account, region).id;
  const subnets: Record<string, string> = {
    a1: net.addSubnet(a, { az: az('a') }).id,
    a2: net.addSubnet(a, { az: az('b') }).id,
    b2: net.addSubnet(b, { az: az('b') }).id,
    b3: net.addSubnet(b, { az: az('c') }).id,
  };
  const otherVpc = net.addVpc(other.account, otherRegion).id;
  const userVpc = net.addVpc(user.account, region).id;
  const userSubnets: Record<string, string> = {};
  for (const l of ['a', 'b', 'c', 'd']) userSubnets[az(l)] = net.addSubnet(userVpc, { az: az(l) }).id;
  const addNlb = (infraID: string, azs = [az('a'), az('b')], o: { provisioningDescribes?: number } = {}): void => {
    net.addLoadBalancer(
      user.account,
      region,
      `${infraID}-int`,
      azs.map((z) => userSubnets[z]!),
      o,
    );
  };
  const infraID = opts.infraID ?? 'mycluster-x7k2p';
  if (opts.nlb !== false) addNlb(infraID);

  const secret = (namespace: string, name: string, data: Record<string, string>): void => {
    if (api.get({ apiVersion: 'v1', kind: 'Secret', namespace, name }) !== undefined) api.delete({ apiVersion: 'v1', kind: 'Secret', namespace, name });
    api.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
    } as never);
  };
  const keys = (id: Identity): Record<string, string> => ({ aws_access_key_id: id.accessKeyId, aws_secret_access_key: id.secretAccessKey });
  secret(HIVE_NS, 'hub-creds', keys(hub));
  secret(HIVE_NS, 'other-creds', keys(other));
  secret(NS, 'cluster-creds', keys(user));
  secret(NS, 'admin-kubeconfig', { kubeconfig: kubeconfigText(API_HOST) });

  const hive: HiveConfig = {
    metadata: { name: 'hive' },
    spec: {
      awsPrivateLink: {
        credentialsSecretRef: { name: 'hub-creds' },
        endpointVPCInventory: [
          {
            vpcID: a,
            region,
            subnets: [
              { subnetID: subnets['a1']!, availabilityZone: az('a') },
              { subnetID: subnets['a2']!, availabilityZone: az('b') },
            ],
          },
          {
            vpcID: b,
            region,
            subnets: [
              { subnetID: subnets['b2']!, availabilityZone: az('b') },
              { subnetID: subnets['b3']!, availabilityZone: az('c') },
            ],
          },
        ],
        associatedVPCs: opts.associateOther === true ? [{ vpcID: otherVpc, region: otherRegion, credentialsSecretRef: { name: 'other-creds' } }] : [],
        dnsRecordType: opts.dnsRecordType ?? 'Alias',
      },
    },
  };
  api.create({ apiVersion: 'hive.openshift.io/v1', kind: 'HiveConfig', ...hive } as never);
  const installed = opts.installed ?? true;
  api.create({
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name: CD_NAME, namespace: NS },
    spec: {
      clusterName: CD_NAME,
      baseDomain: 'example.com',
      installed,
      platform: { aws: { region, credentialsSecretRef: { name: 'cluster-creds' }, privateLink: { enabled: true } } },
      ...(installed ? { clusterMetadata: { clusterID: `${infraID}-id`, infraID, adminKubeconfigSecretRef: { name: 'admin-kubeconfig' } } } : {}),
    },
  } as never);

  const logger = opts.logger ?? silentLogger();
  const raw = new KubeClient({ config: api.kubeConfig(), logger });
  const clients: EC2Client[] = [];
  const recorded: Recorded = new Set();
  const client = {
    request: <T>(method: string, path: string, spec?: Parameters<KubeClient['request']>[2]): Promise<T> => {
      recorded.add(`${method} ${path}`);
      return raw.request<T>(method, path, spec);
    },
  };
  if (opts.verifySignatures === true) aws.aws.verifySignatures = true;
  const byName = { hub, user, other };
  const noDefault = (): Promise<never> => Promise.reject(new Error('the test gives the controller no default credentials'));
  const accounts = new AwsAccounts({
    logger,
    endpointUrl: aws.url,
    retries: opts.retries ?? 0,
    requestsPerSecond: 0,
    sleep: async () => undefined,
    defaultCredentials: opts.defaultIdentity === undefined ? noDefault : byName[opts.defaultIdentity],
  });
  let nowMs = Date.now();
  const reconciler = new PrivateLinkReconciler({
    now: () => new Date(nowMs),
    client,
    accounts: (spec) => accounts.account(spec),
    hiveNamespace: HIVE_NS,
    logger: opts.logger ?? logger,
    sleep: async () => undefined,
    endpointWait: { attempts: 3, delayMs: 0 },
  });
  const cdRef = { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', namespace: NS, name: CD_NAME };
  if (opts.initialized !== false) await reconciler.reconcile(KEY);
  return {
    api,
    aws,
    hub,
    user,
    other,
    vpcs: { a, b, other: otherVpc, hubExtra },
    subnets,
    client: raw,
    accounts,
    reconciler,
    recorded,
    reconcile: () => reconciler.reconcile(KEY),
    cd: () => api.get(cdRef) as unknown as ClusterDeployment,
    patchCd: (mutate) => {
      const cd = api.get(cdRef) as unknown as ClusterDeployment;
      mutate(cd);
      api.update(cd as never);
    },
    hiveConfig: (mutate) => {
      const h = api.get({ apiVersion: 'hive.openshift.io/v1', kind: 'HiveConfig', name: 'hive' }) as unknown as HiveConfig;
      mutate(h);
      api.update(h as never);
    },
    addNlb,
    deprovision: () => {
      api.create({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeprovision', metadata: { name: CD_NAME, namespace: NS }, spec: { infraID } } as never);
    },
    secret,
    advance: (ms) => {
      nowMs += ms;
    },
    addCluster: (name, infraID) => {
      addNlb(infraID);
      secret(NS, `${name}-kubeconfig`, { kubeconfig: kubeconfigText(`api.${name}.example.com`) });
      api.create({
        apiVersion: 'hive.openshift.io/v1',
        kind: 'ClusterDeployment',
        metadata: { name, namespace: NS },
        spec: {
          clusterName: name,
          baseDomain: 'example.com',
          installed: true,
          platform: { aws: { region, credentialsSecretRef: { name: 'cluster-creds' }, privateLink: { enabled: true } } },
          clusterMetadata: { clusterID: `${infraID}-id`, infraID, adminKubeconfigSecretRef: { name: `${name}-kubeconfig` } },
        },
      } as never);
      return `${NS}/${name}`;
    },
    connectEndpoint: async (from) => {
      const svc = [...net.services.values()].find((x) => x.account === user.account && x.region === REGION);
      if (svc === undefined) throw new Error('the cluster has no endpoint service yet');
      const vpc = net.addVpc(from.account, REGION).id;
      const subnet = net.addSubnet(vpc, { azId: 'use1-az1' }).id;
      const client = new EC2Client({ region: REGION, endpoint: aws.url, credentials: from, maxAttempts: 1 });
      clients.push(client);
      const res = await client.send(new CreateVpcEndpointCommand({ VpcEndpointType: 'Interface', VpcId: vpc, ServiceName: svc.name, SubnetIds: [subnet] }));
      return res.VpcEndpoint?.VpcEndpointId ?? '';
    },
    stop: async () => {
      for (const c of clients) c.destroy();
      accounts.close();
      raw.close();
      await aws.stop();
      await api.stop();
    },
  };
}
