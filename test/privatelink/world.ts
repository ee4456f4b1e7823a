/**
 * One PrivateLink test world: the test API server with Hive's CRDs (from deploy/privatelink), the
 * AWS emulator with a hub, a cluster (user) and an associated-VPC account, the hub's endpoint VPC
 * inventory, a cluster NLB, Secrets, HiveConfig and a ClusterDeployment — and the reconciler,
 * driven key by key so tests can assert the end state in every account after each run.
 */
import { KubeClient } from '../../src/kube/client.ts';
import { silentLogger } from '../../src/log.ts';
import type { Logger } from '../../src/log.ts';
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
  /** Another installed cluster with PrivateLink (own NLB, kubeconfig and API host); returns its key. */
  addCluster(name: string, infraID: string): string;
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
  /**
   * Run the controller's first reconcile, which (as Hive's) only initializes the two conditions to
   * Unknown/Initialized and returns (default true). False starts from the bare ClusterDeployment.
   */
  initialized?: boolean;
  /** The reconciler's logger (default silent). */
  logger?: Logger;
}

export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const api = await startTestApiServer({ namespaces: [NS, HIVE_NS], bookmarkIntervalMs: 200 });
  // Hive's own CRDs, so objects are pruned and validated as a Hive cluster would.
  await installCrds(api, loadCrds('hive'));
  const aws = await startAwsEmulators();
  const hub = aws.aws.addAccount('222222222222', 'hive');
  const user = aws.aws.addAccount('111111111111', 'installer');
  const other = aws.aws.addAccount('333333333333', 'shared-dns');
  const net = aws.network;

  // The hub's inventory: vpc-a in AZs a and b, vpc-b in AZs b and c; an unrelated hub VPC too.
  const a = net.addVpc(hub.account, REGION).id;
  const b = net.addVpc(hub.account, REGION).id;
  const hubExtra = net.addVpc(hub.account, REGION).id;
  const subnets: Record<string, string> = {
    a1: net.addSubnet(a, { az: 'us-east-1a' }).id,
    a2: net.addSubnet(a, { az: 'us-east-1b' }).id,
    b2: net.addSubnet(b, { az: 'us-east-1b' }).id,
    b3: net.addSubnet(b, { az: 'us-east-1c' }).id,
  };
  const otherVpc = net.addVpc(other.account, 'us-east-2').id;
  const userVpc = net.addVpc(user.account, REGION).id;
  const userSubnets: Record<string, string> = {};
  for (const az of ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d']) userSubnets[az] = net.addSubnet(userVpc, { az }).id;
  const addNlb = (infraID: string, azs = ['us-east-1a', 'us-east-1b'], o: { provisioningDescribes?: number } = {}): void => {
    net.addLoadBalancer(
      user.account,
      REGION,
      `${infraID}-int`,
      azs.map((z) => userSubnets[z]!),
      o,
    );
  };
  const infraID = opts.infraID ?? 'mycluster-x7k2p';
  if (opts.nlb !== false) addNlb(infraID);

  const secret = (namespace: string, name: string, data: Record<string, string>): void => {
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
            region: REGION,
            subnets: [
              { subnetID: subnets['a1']!, availabilityZone: 'us-east-1a' },
              { subnetID: subnets['a2']!, availabilityZone: 'us-east-1b' },
            ],
          },
          {
            vpcID: b,
            region: REGION,
            subnets: [
              { subnetID: subnets['b2']!, availabilityZone: 'us-east-1b' },
              { subnetID: subnets['b3']!, availabilityZone: 'us-east-1c' },
            ],
          },
        ],
        associatedVPCs: opts.associateOther === true ? [{ vpcID: otherVpc, region: 'us-east-2', credentialsSecretRef: { name: 'other-creds' } }] : [],
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
      platform: { aws: { region: REGION, credentialsSecretRef: { name: 'cluster-creds' }, privateLink: { enabled: true } } },
      ...(installed ? { clusterMetadata: { clusterID: `${infraID}-id`, infraID, adminKubeconfigSecretRef: { name: 'admin-kubeconfig' } } } : {}),
    },
  } as never);

  const logger = opts.logger ?? silentLogger();
  const raw = new KubeClient({ config: api.kubeConfig(), logger });
  const recorded: Recorded = new Set();
  const client = {
    request: <T>(method: string, path: string, spec?: Parameters<KubeClient['request']>[2]): Promise<T> => {
      recorded.add(`${method} ${path}`);
      return raw.request<T>(method, path, spec);
    },
  };
  const accounts = new AwsAccounts({ logger, endpointUrl: aws.url, retries: opts.retries ?? 0, requestsPerSecond: 0, sleep: async () => undefined });
  let nowMs = Date.now();
  const reconciler = new PrivateLinkReconciler({
    now: () => new Date(nowMs),
    client,
    accounts: (spec) => accounts.account(spec),
    hiveNamespace: HIVE_NS,
    logger,
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
          platform: { aws: { region: REGION, credentialsSecretRef: { name: 'cluster-creds' }, privateLink: { enabled: true } } },
          clusterMetadata: { clusterID: `${infraID}-id`, infraID, adminKubeconfigSecretRef: { name: `${name}-kubeconfig` } },
        },
      } as never);
      return `${NS}/${name}`;
    },
    stop: async () => {
      accounts.close();
      raw.close();
      await aws.stop();
      await api.stop();
    },
  };
}
