/**
 * The PrivateLink reconciler, in the kubebuilder shape: read the ClusterDeployment (stop when it is
 * gone), clean up on deletion, deprovision or `enabled: false` behind the finalizer, otherwise run
 * the setup steps and report them in the two conditions. Failures are written to status and then
 * thrown, so the work queue retries them with backoff.
 */
import { sleep } from '../backoff.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { KubeClient } from '../kube/client.ts';
import { findCondition, hasFinalizer, patchFinalizers, setCondition } from '../kube/conditions.ts';
import type { Condition, ConditionInput } from '../kube/conditions.ts';
import { isStatus } from '../kube/errors.ts';
import { objectPath } from '../kube/resource.ts';
import type { ReconcileResult } from '../kube/work-queue.ts';
import { parseKey } from './keys.ts';
import type { AccountFactory, AwsAccount } from './aws/ports.ts';
import { cleanupAccess } from './steps/cleanup.ts';
import { WarnedOnce } from './steps/connections.ts';
import { StepError } from './errors.ts';
import { apiHostFromSecret } from './steps/hosted-zone.ts';
import { clusterIdentity, readDeprovision, readHiveConfig, readSecret } from './inputs.ts';
import type { ClusterIdentity, KubeRequest } from './inputs.ts';
import { setUpAccess } from './steps/setup.ts';
import { CLEANED_PREV_ANNOTATION, CLUSTER_DEPLOYMENTS, FAILED, FINALIZER, READY, REASONS, inventoryFor, isPrivateLinkEnabled } from './types.ts';
import type { ClusterDeployment, HiveConfig, InventoryVPC, PrivateLinkStatus, SecretRef } from './types.ts';

export const RESYNC_INSTALLED_MS = 2 * 60 * 60_000;
export const RESYNC_INSTALLING_MS = 10 * 60_000;
export const WAIT_PROVISION_MS = 60_000;

export interface PrivateLinkReconcilerOptions {
  client: Pick<KubeClient, 'request'>;
  accounts: AccountFactory;
  /** Where HiveConfig's Secrets live. */
  hiveNamespace: string;
  logger: Logger;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Polls of a new endpoint's state within one reconcile. */
  endpointWait?: { attempts: number; delayMs: number };
}

export type Conditions = { ready: ConditionInput; failed: ConditionInput };

export class PrivateLinkReconciler {
  private readonly opts: PrivateLinkReconcilerOptions;
  private readonly client: KubeRequest;
  private readonly log: Logger;
  private readonly now: () => Date;
  /** Missing-permission warnings given, once per cluster (issue #23 item 6). */
  private readonly warned = new WarnedOnce();

  constructor(opts: PrivateLinkReconcilerOptions) {
    this.opts = opts;
    this.client = opts.client;
    this.log = opts.logger;
    this.now = opts.now ?? (() => new Date());
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const { namespace, name } = parseKey(key);
    let cd: ClusterDeployment;
    try {
      cd = await this.client.request<ClusterDeployment>('GET', objectPath(CLUSTER_DEPLOYMENTS, namespace, name));
    } catch (err) {
      if (isStatus(err, 404)) return {};
      throw err;
    }
    const log = this.log.child({ clusterDeployment: key });
    const hive = await readHiveConfig(this.client);
    const removed = await this.removeWhenUnwanted(cd, hive, log);
    if (removed !== undefined) return removed;

    cd = await this.markStarted(cd);
    const region = cd.spec.platform?.aws?.region ?? '';
    const inventory = inventoryFor(hive, region);
    if (inventory.length === 0) {
      const message = `region ${JSON.stringify(region)} has no VPC in HiveConfig's endpointVPCInventory`;
      await this.writeStatus(cd, undefined, conditions({ status: 'False', reason: REASONS.unsupportedRegion, message }, true));
      // Nothing changes until HiveConfig or the ClusterDeployment does; both bring the key back.
      return {};
    }
    const identity = await clusterIdentity(this.client, cd);
    if (identity === undefined) {
      const waiting = conditions(
        { status: 'False', reason: REASONS.waitingForProvision, message: "waiting for the provision's infraID and admin kubeconfig" },
        false,
      );
      await this.writeStatus(cd, undefined, waiting);
      return { requeueAfterMs: WAIT_PROVISION_MS };
    }
    return this.converge(cd, hive, { identity, region, inventory }, log);
  }

  /**
   * Deleted, PrivateLink turned off, or being deprovisioned: clean up (unless preserveOnDelete) and
   * release the finalizer. Undefined when the cluster still wants PrivateLink access.
   */
  private async removeWhenUnwanted(cd: ClusterDeployment, hive: HiveConfig | undefined, log: Logger): Promise<ReconcileResult | undefined> {
    if (cd.metadata.deletionTimestamp !== undefined) {
      if (!hasFinalizer(cd, FINALIZER)) return {};
      // As in Hive, preserveOnDelete keeps the resources only of a cluster still using PrivateLink.
      if (cd.spec.preserveOnDelete !== true || !isPrivateLinkEnabled(cd)) await this.cleanupOrReport(cd, hive, log);
      else log.info('preserveOnDelete: leaving the PrivateLink resources in place');
      await patchFinalizers(this.client, CLUSTER_DEPLOYMENTS, cd, { remove: FINALIZER });
      return {};
    }
    if (!isPrivateLinkEnabled(cd)) {
      if (!hasFinalizer(cd, FINALIZER)) return {};
      await this.cleanupOrReport(cd, hive, log);
      const cleared = await this.writeStatus(cd, null, undefined);
      await patchFinalizers(this.client, CLUSTER_DEPLOYMENTS, cleared, { remove: FINALIZER });
      return {};
    }
    if ((await readDeprovision(this.client, cd.metadata.namespace ?? '', cd.metadata.name)) !== undefined) {
      if (cd.spec.preserveOnDelete !== true) await this.cleanupOrReport(cd, hive, log);
      await this.writeStatus(cd, null, conditions({ status: 'False', reason: REASONS.deprovisioned, message: 'the cluster is being deprovisioned' }, false));
      return {};
    }
    return undefined;
  }

  /** The initial conditions (once) and the finalizer, before anything is created in AWS. */
  private async markStarted(cd: ClusterDeployment): Promise<ClusterDeployment> {
    let current = cd;
    if (findCondition(current.status?.conditions, READY) === undefined || findCondition(current.status?.conditions, FAILED) === undefined) {
      current = await this.writeStatus(current, undefined, {
        ready: { type: READY, status: 'False', reason: REASONS.initialized, message: 'PrivateLink access is being set up' },
        failed: { type: FAILED, status: 'False', reason: REASONS.initialized, message: '' },
      });
    }
    if (!hasFinalizer(current, FINALIZER)) current = await patchFinalizers(this.client, CLUSTER_DEPLOYMENTS, current, { add: FINALIZER });
    return current;
  }

  /** Sets up (or keeps) the access and records the outcome; a step's failure is recorded, then rethrown for the queue's backoff. */
  private async converge(
    cd: ClusterDeployment,
    hive: HiveConfig | undefined,
    target: { identity: ClusterIdentity; region: string; inventory: InventoryVPC[] },
    log: Logger,
  ): Promise<ReconcileResult> {
    const plStatus: PrivateLinkStatus = structuredClone(cd.status?.platformStatus?.aws?.privateLink ?? {});
    // The object as last written: the failure status below must carry its resourceVersion.
    let current = cd;
    try {
      current = await this.removePreviousAttempt(cd, hive, target.identity, plStatus, log);
      const outcome = await this.setUp(current, hive, target, plStatus, log);
      if (outcome.kind === 'waiting') {
        await this.writeStatus(current, plStatus, conditions({ status: 'False', reason: outcome.reason, message: outcome.message }, false));
        return { requeueAfterMs: outcome.retryAfterMs };
      }
      const ready = conditions({ status: 'True', reason: REASONS.ready, message: 'the hub reaches the cluster API through AWS PrivateLink' }, false);
      await this.writeStatus(current, plStatus, ready);
      if (outcome.principalsChanged) return { requeueAfterMs: 0 };
      return { requeueAfterMs: current.spec.installed === true ? RESYNC_INSTALLED_MS : RESYNC_INSTALLING_MS };
    } catch (err) {
      if (!(err instanceof StepError)) throw err;
      const reason = err.reason;
      log.warn({ reason, err: errorMessage(err) }, 'PrivateLink reconcile failed');
      try {
        await this.writeStatus(current, plStatus, conditions({ status: 'False', reason, message: errorMessage(err) }, true));
      } catch (statusErr) {
        log.warn({ err: errorMessage(statusErr) }, 'could not record the failure in status');
      }
      throw err;
    }
  }

  /** A reinstall under a new infraID: remove the previous attempt's resources once, and remember it in an annotation. */
  private async removePreviousAttempt(
    cd: ClusterDeployment,
    hive: HiveConfig | undefined,
    identity: ClusterIdentity,
    plStatus: PrivateLinkStatus,
    log: Logger,
  ): Promise<ClusterDeployment> {
    const prev = identity.prevInfraID;
    if (prev === undefined || prev === '' || prev === identity.infraID || cd.metadata.annotations?.[CLEANED_PREV_ANNOTATION] === prev) return cd;
    await this.withReason(REASONS.cleanupFailed, () => this.cleanup(cd, hive, log, prev));
    const patched = await this.client.request<ClusterDeployment>('PATCH', objectPath(CLUSTER_DEPLOYMENTS, cd.metadata.namespace ?? '', cd.metadata.name), {
      body: { metadata: { annotations: { [CLEANED_PREV_ANNOTATION]: prev }, resourceVersion: cd.metadata.resourceVersion } },
      contentType: 'application/merge-patch+json',
    });
    delete plStatus.vpcEndpointService;
    delete plStatus.vpcEndpointID;
    delete plStatus.hostedZoneID;
    log.info({ prevInfraID: prev }, "removed the previous install attempt's PrivateLink resources");
    return patched;
  }

  private async setUp(
    cd: ClusterDeployment,
    hive: HiveConfig | undefined,
    target: { identity: ClusterIdentity; region: string; inventory: InventoryVPC[] },
    plStatus: PrivateLinkStatus,
    log: Logger,
  ): ReturnType<typeof setUpAccess> {
    const { identity, region, inventory } = target;
    const { user, hub, associated } = await this.withReason(REASONS.credentialsFailed, () => this.accountsFor(cd, hive!, region));
    const deps = {
      user,
      hub,
      log,
      sleep: this.opts.sleep ?? sleep,
      waitAttempts: this.opts.endpointWait?.attempts ?? 10,
      waitDelayMs: this.opts.endpointWait?.delayMs ?? 3000,
      warned: this.warned,
    };
    const wanted = {
      infraID: identity.infraID,
      region,
      additionalAllowedPrincipals: cd.spec.platform?.aws?.privateLink?.additionalAllowedPrincipals ?? [],
      inventory,
      associatedVPCs: associated,
      dnsRecordType: hive?.spec.awsPrivateLink?.dnsRecordType ?? 'Alias',
      apiHost: () => this.apiHost(cd.metadata.namespace ?? '', identity.kubeconfigSecret),
    };
    return setUpAccess(deps, wanted, plStatus);
  }

  private async withReason<T>(reason: StepError['reason'], fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof StepError) throw err;
      throw new StepError(reason, errorMessage(err), err);
    }
  }

  private async apiHost(namespace: string, ref: SecretRef): Promise<string> {
    return apiHostFromSecret(await readSecret(this.client, namespace, ref), `${namespace}/${ref.name}`);
  }

  private async secretData(namespace: string, ref: SecretRef | undefined, what: string): Promise<Record<string, string> | undefined> {
    if (ref === undefined) return undefined;
    const data = await readSecret(this.client, namespace, ref);
    if (data === undefined) throw new Error(`${what} Secret ${namespace}/${ref.name} not found`);
    return data;
  }

  /**
   * The cluster account, as Hive's awsclient.New picks it: the cluster's Secret alone when named;
   * else its credentialsAssumeRole, assumed with the service-provider Secret of HiveConfig (or the
   * controller's default chain when none is named). With neither, Hive would act in the cluster's
   * account as the controller itself; Hostwarden refuses.
   */
  private async userAccount(cd: ClusterDeployment, hive: HiveConfig | undefined, region: string): Promise<AwsAccount> {
    const aws = cd.spec.platform?.aws;
    const ref = aws?.credentialsSecretRef;
    if (ref !== undefined && ref.name !== '') {
      return this.opts.accounts({ region, secret: await this.secretData(cd.metadata.namespace ?? '', ref, 'cluster credentials') });
    }
    const role = aws?.credentialsAssumeRole;
    if (role === undefined || role.roleARN === '') {
      throw new StepError(
        REASONS.credentialsFailed,
        "the ClusterDeployment names neither spec.platform.aws.credentialsSecretRef nor spec.platform.aws.credentialsAssumeRole: refusing to act in the cluster's account with the controller's own identity",
      );
    }
    const spRef = hive?.spec.serviceProviderCredentialsConfig?.aws?.credentialsSecretRef;
    const secret = spRef === undefined || spRef.name === '' ? undefined : await this.secretData(this.opts.hiveNamespace, spRef, 'service provider credentials');
    return this.opts.accounts({ region, secret, assumeRole: { roleArn: role.roleARN, externalId: role.externalID } });
  }

  private async hubAccount(hive: HiveConfig | undefined, region: string): Promise<AwsAccount> {
    const ref = hive?.spec.awsPrivateLink?.credentialsSecretRef;
    const named = ref === undefined || ref.name === '' ? undefined : ref;
    return this.opts.accounts({ region, secret: await this.secretData(this.opts.hiveNamespace, named, 'HiveConfig awsPrivateLink credentials') });
  }

  private async accountsFor(
    cd: ClusterDeployment,
    hive: HiveConfig,
    region: string,
  ): Promise<{ user: AwsAccount; hub: AwsAccount; associated: { vpcId: string; region: string; account?: AwsAccount['route53'] }[] }> {
    const user = await this.userAccount(cd, hive, region);
    const hub = await this.hubAccount(hive, region);
    const associated = [];
    for (const v of hive.spec.awsPrivateLink?.associatedVPCs ?? []) {
      const ref = v.credentialsSecretRef?.name === '' ? undefined : v.credentialsSecretRef;
      const secret = await this.secretData(this.opts.hiveNamespace, ref, `associated VPC ${v.vpcID} credentials`);
      associated.push({
        vpcId: v.vpcID,
        region: v.region,
        ...(secret === undefined ? {} : { account: this.opts.accounts({ region: v.region, secret }).route53 }),
      });
    }
    return { user, hub, associated };
  }

  /** The cluster's cleanup; a failure is recorded in the conditions before the queue retries it. */
  private async cleanupOrReport(cd: ClusterDeployment, hive: HiveConfig | undefined, log: Logger): Promise<void> {
    try {
      await this.cleanup(cd, hive, log);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'PrivateLink cleanup failed');
      await this.writeStatus(cd, undefined, conditions({ status: 'False', reason: REASONS.deprovisionCleanupFailed, message: errorMessage(err) }, true)).catch(
        () => undefined,
      );
      throw err;
    }
  }

  /** Removes the resources of `infraID` (the cluster's current one by default). */
  private async cleanup(cd: ClusterDeployment, hive: HiveConfig | undefined, log: Logger, infraIDOverride?: string): Promise<void> {
    const region = cd.spec.platform?.aws?.region ?? '';
    const identity = await clusterIdentity(this.client, cd).catch(() => undefined);
    const infraID = infraIDOverride ?? identity?.infraID ?? cd.spec.clusterMetadata?.infraID;
    const known = cd.status?.platformStatus?.aws?.privateLink;
    if (infraID === undefined && known?.hostedZoneID === undefined) return;
    const hub = await this.hubAccount(hive, region);
    let user: AwsAccount | undefined;
    try {
      user = await this.userAccount(cd, hive, region);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'cluster credentials unusable: endpoint services in the cluster account are left');
    }
    const host = identity === undefined ? undefined : await this.apiHost(cd.metadata.namespace ?? '', identity.kubeconfigSecret).catch(() => undefined);
    await cleanupAccess(
      { hubEc2: hub.ec2, hubRoute53: hub.route53, userEc2: user?.ec2 },
      { infraID: infraID ?? '', zoneId: infraIDOverride === undefined ? known?.hostedZoneID : undefined, host },
      log,
      this.warned,
    );
  }

  /**
   * Writes the privateLink status (`null` clears it, undefined leaves it) and conditions through
   * the status subresource, only when something changed. Returns the object as stored.
   */
  private async writeStatus(cd: ClusterDeployment, pl: PrivateLinkStatus | null | undefined, conds: Conditions | undefined): Promise<ClusterDeployment> {
    const now = this.now();
    let list: Condition[] | undefined = cd.status?.conditions;
    if (conds !== undefined) list = setCondition(setCondition(list, conds.ready, now), conds.failed, now);
    const oldPl = cd.status?.platformStatus?.aws?.privateLink;
    const plChanged = pl === null ? oldPl !== undefined : pl !== undefined && JSON.stringify(pl) !== JSON.stringify(oldPl ?? {});
    const condChanged = JSON.stringify(list) !== JSON.stringify(cd.status?.conditions);
    if (!plChanged && !condChanged) return cd;
    const body: Record<string, unknown> = {};
    if (condChanged) body['conditions'] = list;
    // A merge patch replaces what it names: the whole privateLink object, so dropped fields go.
    if (plChanged && pl !== undefined) body['platformStatus'] = { aws: { privateLink: pl === null ? null : statusPatch(pl) } };
    const path = `${objectPath(CLUSTER_DEPLOYMENTS, cd.metadata.namespace ?? '', cd.metadata.name)}/status`;
    return this.client.request<ClusterDeployment>('PATCH', path, {
      body: { metadata: { resourceVersion: cd.metadata.resourceVersion }, status: body },
      contentType: 'application/merge-patch+json',
    });
  }
}

/** Exported for the Hive conformance replay (test/conformance/hive/awsprivatelink). */
export function conditions(ready: Omit<ConditionInput, 'type'>, failed: boolean): Conditions {
  return {
    ready: { type: READY, ...ready },
    failed: failed
      ? { type: FAILED, status: 'True', reason: ready.reason, message: ready.message }
      : { type: FAILED, status: 'False', reason: REASONS.noFailure, message: '' },
  };
}

/** Every field named, absent ones as null: a merge patch would otherwise keep stale values. */
function statusPatch(pl: PrivateLinkStatus): Record<string, unknown> {
  const svc = pl.vpcEndpointService;
  return {
    vpcEndpointService:
      svc === undefined
        ? null
        : {
            name: svc.name,
            id: svc.id,
            defaultAllowedPrincipal: svc.defaultAllowedPrincipal ?? null,
            additionalAllowedPrincipals: svc.additionalAllowedPrincipals ?? null,
          },
    vpcEndpointID: pl.vpcEndpointID ?? null,
    hostedZoneID: pl.hostedZoneID ?? null,
  };
}
