/**
 * Replays of Hive's TestReconcile cases: one reconcile of test-namespace/test-cd through
 * Hostwarden's reconciler in the case's world (world.ts), then the checks Hive's test makes —
 * error text, finalizer, annotations, conditions (Hive's lenient way), privateLink status, the
 * object gone — and the AWS end state the mock expectations imply, with emulator ids renamed to
 * Hive's.
 */
import assert from 'node:assert/strict';
import { errorMessage } from '../../../../src/errors.ts';
import { FINALIZER } from '../../../../src/privatelink/types.ts';
import type { ClusterDeployment } from '../../../../src/privatelink/types.ts';
import { assertHiveConditions, wanted } from './cases.ts';
import type { Case, ExpectedCondition } from './cases.ts';
import { CD, NS, TAG, principalArn, startCaseWorld } from './world.ts';
import type { CaseWorld, Given } from './world.ts';

type Zone = { id: string; name: string; vpcs: { vpcID: string; region: string }[]; record: Record<string, unknown> };
export interface Expect {
  error?: string;
  finalizer?: boolean;
  deleted?: boolean;
  conditions?: ExpectedCondition[];
  /** Hostwarden's answer in some differences: the ClusterDeployment carries no conditions at all. */
  noConditions?: boolean;
  status?: Record<string, unknown> | null;
  annotations?: Record<string, string>;
  aws?: {
    endpointService?: { id: string; acceptanceRequired: boolean; loadBalancers: string[]; allowedPrincipals: string[] };
    createdEndpoint?: { id: string; vpcID: string; state: string };
    endpoints?: unknown[];
    endpointsAfter?: Record<string, string>;
    hostedZones?: Zone[];
    route53Calls?: string[];
    removed?: string[];
    calls?: string[];
  };
}
export type ReconcileCase = Case<Given, Expect>;

function renamed<T>(w: CaseWorld, value: T): T {
  let text = JSON.stringify(value ?? null);
  for (const [from, to] of [...w.rename].sort((a, b) => b[0].length - a[0].length)) text = text.split(from).join(to);
  return JSON.parse(text) as T;
}

/** Binds what AWS named during the run to the names Hive's expectations use. */
function bindCreated(w: CaseWorld, e: Expect): void {
  const net = w.aws.network;
  const svc = [...net.services.values()].find((s) => s.account === w.user.account && s.tags.some((t) => t.key === TAG && t.value === w.infraID));
  if (svc !== undefined && !w.seeded.has(svc.id)) {
    w.rename.set(svc.id, 'vpce-svc-12345');
    w.rename.set(svc.name, 'vpce-svc-12345.vpc.amazon.com');
  }
  const created = [...net.endpoints.values()].filter((x) => x.account === w.hub.account && !w.seeded.has(x.id));
  if (created.length === 1 && e.aws?.createdEndpoint !== undefined) w.rename.set(created[0]!.id, e.aws.createdEndpoint.id);
  const zones = w.aws.route53.zonesOf(w.hub.account).filter((z) => !w.seeded.has(z.id));
  const zoneId = (e.status?.['hostedZoneID'] as string | undefined) ?? 'HZ12345';
  if (zones.length === 1) w.rename.set(zones[0]!.id, zoneId);
  for (const p of e.aws?.endpointService?.allowedPrincipals ?? []) w.rename.set(principalArn(p, w), p);
}

export async function replayReconcile(c: ReconcileCase): Promise<void> {
  const w = await startCaseWorld(c.given);
  try {
    let error: string | undefined;
    try {
      await w.reconciler.reconcile(`${NS}/${CD}`);
    } catch (err) {
      error = errorMessage(err);
    }
    const e = wanted(c);
    bindCreated(w, e);
    // Every check runs, so a case's report lists all it differs in (wording and substance apart).
    const failures: string[] = [];
    const check = (fn: () => void): void => {
      try {
        fn();
      } catch (err) {
        failures.push(errorMessage(err));
      }
    };
    check(() => assert.equal(error === undefined ? undefined : renamed(w, error), e.error, 'reconcile error'));
    const cd = w.api.get({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', namespace: NS, name: CD }) as unknown as
      ClusterDeployment | undefined;
    if (e.deleted === true) check(() => assert.equal(cd, undefined, 'the ClusterDeployment is gone'));
    else checkCd(w, cd, e, check);
    check(() => checkAws(w, e));
    assert.deepEqual(failures, []);
  } finally {
    await w.stop();
  }
}

function checkCd(w: CaseWorld, cd: ClusterDeployment | undefined, e: Expect, check: (fn: () => void) => void): void {
  check(() => assert.ok(cd !== undefined, 'the ClusterDeployment exists'));
  if (cd === undefined) return;
  if (e.finalizer === true) check(() => assert.ok((cd.metadata.finalizers ?? []).includes(FINALIZER), 'finalizer'));
  if (e.annotations !== undefined) check(() => assert.deepEqual(cd.metadata.annotations ?? {}, e.annotations, 'annotations'));
  if (e.conditions !== undefined) check(() => assertHiveConditions(cd.status?.conditions, e.conditions!));
  if (e.noConditions === true) check(() => assert.deepEqual(cd.status?.conditions ?? [], [], 'no conditions'));
  if (e.status !== undefined) check(() => assert.deepEqual(renamed(w, cd.status?.platformStatus?.aws?.privateLink ?? null), e.status, 'privateLink status'));
}

function checkAws(w: CaseWorld, e: Expect): void {
  const a = e.aws;
  if (a === undefined) return;
  const net = w.aws.network;
  if (a.endpointService !== undefined) {
    const s = [...net.services.values()].filter((x) => x.account === w.user.account);
    assert.equal(s.length, 1, 'one endpoint service in the cluster account');
    const got = { id: s[0]!.id, acceptanceRequired: s[0]!.acceptanceRequired, loadBalancers: s[0]!.nlbArns, allowedPrincipals: [...s[0]!.allowedPrincipals] };
    const norm = renamed(w, got);
    norm.allowedPrincipals.sort();
    assert.deepEqual(norm, a.endpointService, 'endpoint service');
  }
  const hubEndpoints = [...net.endpoints.values()].filter((x) => x.account === w.hub.account);
  const created = hubEndpoints.filter((x) => !w.seeded.has(x.id));
  if (a.endpoints !== undefined) assert.deepEqual(created, [], 'no endpoint created');
  if (a.createdEndpoint !== undefined) {
    assert.deepEqual(
      created.map((x) => renamed(w, { id: x.id, vpcID: x.vpcId, state: x.state })),
      [a.createdEndpoint],
      'the endpoint created',
    );
  }
  if (a.endpointsAfter !== undefined) {
    const after = Object.fromEntries(hubEndpoints.filter((x) => w.seeded.has(x.id)).map((x) => [x.id, x.state]));
    assert.deepEqual(after, a.endpointsAfter, 'the tagged endpoints afterwards');
  }
  if (a.hostedZones !== undefined) checkZones(w, a.hostedZones);
  if (a.route53Calls !== undefined) checkAssociationCalls(w);
  if (a.removed !== undefined) {
    const left = [
      ...net.services.keys(),
      ...[...net.endpoints.values()].filter((x) => x.state !== 'deleted').map((x) => x.id),
      ...w.aws.route53.zonesOf(w.hub.account).map((z) => z.id),
    ];
    assert.deepEqual(left, [], 'everything of the previous attempt removed');
  }
  if (a.calls !== undefined)
    assert.deepEqual(
      w.aws.aws.log.map((l) => l.operation),
      [],
      'no AWS calls',
    );
}

function checkZones(w: CaseWorld, want: Zone[]): void {
  const endpoint = [...w.aws.network.endpoints.values()].find((x) => x.account === w.hub.account && !w.seeded.has(x.id));
  const zones = w.aws.route53.zonesOf(w.hub.account).map((z) => {
    const rec = [...z.sets.values()].find((r) => r.type === 'A');
    let record: Record<string, unknown> = {};
    if (rec?.alias !== undefined) {
      record = {
        name: rec.name.replace(/\.$/, ''),
        type: 'A',
        aliasTo: endpoint !== undefined && rec.alias.dnsName.includes(endpoint.id) ? 'endpoint' : rec.alias.dnsName,
      };
    } else if (rec !== undefined) {
      const ips = (endpoint?.eniIds ?? []).map((id) => w.aws.network.interfaces.get(id)?.privateIp ?? '').sort();
      const values = JSON.stringify([...rec.values].sort()) === JSON.stringify(ips) ? 'endpoint interface addresses, sorted' : rec.values;
      record = { name: rec.name.replace(/\.$/, ''), type: 'A', ttl: rec.ttl, values };
    }
    return { id: z.id, name: z.name, vpcs: z.vpcs.map((v) => ({ vpcID: v.vpcId, region: v.region })), record };
  });
  const sortVpcs = (l: Zone[]): Zone[] => l.map((z) => ({ ...z, vpcs: [...z.vpcs].sort((x, y) => x.vpcID.localeCompare(y.vpcID)) }));
  assert.deepEqual(sortVpcs(renamed(w, zones)), sortVpcs(want), 'private hosted zones');
}

/** Cross-account association: the hub authorizes, the VPC's account associates, the hub withdraws the authorization. */
function checkAssociationCalls(w: CaseWorld): void {
  const ops = w.aws.aws.log
    .filter((l) => /^((Create|Delete)VPCAssociationAuthorization|AssociateVPCWithHostedZone)$/.test(l.operation))
    .map((l) => `${l.operation} ${l.principal}`);
  assert.deepEqual(ops, [
    `CreateVPCAssociationAuthorization ${w.hub.arn}`,
    `AssociateVPCWithHostedZone ${w.other.arn}`,
    `DeleteVPCAssociationAuthorization ${w.hub.arn}`,
  ]);
}
