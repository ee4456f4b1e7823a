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
import { hasFinalizer, patchFinalizers } from '../kube/conditions.ts';
import { isStatus } from '../kube/errors.ts';
import { keyOf, objectPath } from '../kube/resource.ts';
import type { ReconcileResult } from '../kube/work-queue.ts';
import { parseKey } from './keys.ts';
import type { AccountFactory, AwsAccount } from './aws/ports.ts';
import { cleanupAccess } from './steps/cleanup.ts';
import { WarnedOnce } from './steps/connections.ts';
import { StepError, logFields } from './errors.ts';
import { apiHostFromSecret } from './steps/hosted-zone.ts';
import { clusterIdentity, readDeprovision, readHiveConfig, readProvision, readSecret } from './inputs.ts';
import type { ClusterIdentity, KubeRequest } from './inputs.ts';
import { setUpAccess } from './steps/setup.ts';
import type { SetupDeps } from './steps/setup.ts';
import {
  WINDOW_INSTALLED_MS,
  WINDOW_INSTALLING_MS,
  errConditions,
  errorScrub,
  initializeConditions,
  isPaused,
  readyConditions,
  shouldSync,
} from './conditions.ts';
import type { HiveCondition } from './types.ts';
import {
  CLUSTER_DEPLOYMENTS,
  FAILED,
  FINALIZER,
  LAST_CLEANUP_ANNOTATION,
  LEGACY_CLEANED_PREV_ANNOTATION,
  MESSAGES,
  READY,
  REASONS,
  inventoryFor,
  isPrivateLinkEnabled,
  unsupportedRegionMessage,
} from './types.ts';
import type { ClusterDeployment, HiveConfig, InventoryVPC, PrivateLinkStatus, SecretRef } from './types.ts';

export const RESYNC_INSTALLED_MS = WINDOW_INSTALLED_MS;
export const RESYNC_INSTALLING_MS = WINDOW_INSTALLING_MS;

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

export class PrivateLinkReconciler {
  private readonly opts: PrivateLinkReconcilerOptions;
  private readonly client: KubeRequest;
  private readonly log: Logger;
  private readonly now: () => Date;
  /** Missing-permission warnings given, once per cluster (issue #23 item 6). */
  private readonly warned = new WarnedOnce();
  /**
   * HiveConfig's generation at each cluster's last Ready, so a HiveConfig change (inventory,
   * associated VPCs, record type) applies at once instead of after shouldSync's 2 h window. In
   * memory only: after a restart the first reconcile follows shouldSync, as Hive's does.
   */
  private readonly hiveGenerationAtReady = new Map<string, number | undefined>();

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
      if (isStatus(err, 404)) {
        this.hiveGenerationAtReady.delete(key);
        return {};
      }
      throw err;
    }
    const log = this.log.child({ clusterDeployment: key });
    if (isPaused(cd)) {
      // Before anything else, as Hive: no condition, no finalizer, no AWS call, no cleanup.
      log.info('skipping reconcile due to ClusterDeployment pause annotation');
      return {};
    }
    const init = initializeConditions(cd.status?.conditions, [FAILED, READY], this.now());
    if (init.changed) {
      log.info('initializing AWS private link controller conditions');
      // Hive returns here; the status write is a ClusterDeployment change, which brings the key back.
      await this.writeStatus(cd, undefined, init.list);
      return {};
    }
    const privateLink = cd.spec.platform?.aws?.privateLink;
    if (privateLink === undefined) {
      log.debug('no spec.platform.aws.privateLink: not for this controller');
      return {};
    }
    const hive = await readHiveConfig(this.client);
    // Hive cleans a disabled cluster only when cleanupRequired; Hostwarden whenever its finalizer is
    // there (cleanupWanted), and releases the finalizer even with nothing to clean, so a later
    // deletion is not held forever (docs/privatelink.md).
    if (privateLink.enabled !== true) return hasFinalizer(cd, FINALIZER) ? this.cleanupClusterDeployment(cd, hive, log) : {};
    if (cd.metadata.deletionTimestamp !== undefined) return this.cleanupClusterDeployment(cd, hive, log);
    const deprovisioned = await this.cleanupForDeprovision(cd, hive, log);
    if (deprovisioned !== undefined) return deprovisioned;
    if (!hasFinalizer(cd, FINALIZER)) cd = await patchFinalizers(this.client, CLUSTER_DEPLOYMENTS, cd, { add: FINALIZER });
    return this.reconcileSupported(cd, hive, log);
  }

  /** From the region check on: shouldSync's rate limit, then the cluster's identity and the setup. */
  private async reconcileSupported(cd: ClusterDeployment, hive: HiveConfig | undefined, log: Logger): Promise<ReconcileResult> {
    const region = cd.spec.platform?.aws?.region ?? '';
    const inventory = inventoryFor(hive, region);
    if (inventory.length === 0) {
      const message = unsupportedRegionMessage(region);
      log.error({ err: message }, 'cluster deployment region is not supported, so skipping');
      await this.writeStatus(cd, undefined, errConditions(cd.status?.conditions, REASONS.unsupportedRegion, message, this.now()).list);
      // Nothing changes until HiveConfig or the ClusterDeployment does; both bring the key back.
      return {};
    }
    const sync = shouldSync(cd, this.now());
    if (!sync.sync && !this.hiveConfigChanged(cd, hive)) {
      log.debug({ syncAfterMs: sync.afterMs }, 'sync not needed');
      return { requeueAfterMs: sync.afterMs };
    }
    if (cd.spec.installed !== true) {
      // As Hive: the previous attempt goes as soon as the new provision names it, before its own infraID is known.
      const cleaned = await this.removePreviousAttempt(cd, hive, log);
      if (cleaned !== undefined) return cleaned;
    }
    const identity = await clusterIdentity(this.client, cd);
    if (identity === undefined) {
      // Hive waits without a condition; the provision's changes bring the key back.
      log.debug('waiting for the provision to provide the infraID and admin kubeconfig');
      return {};
    }
    return this.converge(cd, hive, { identity, region, inventory }, log);
  }

  /** HiveConfig changed since this cluster was last Ready in this process (Hostwarden only: Hive waits for its window). */
  private hiveConfigChanged(cd: ClusterDeployment, hive: HiveConfig | undefined): boolean {
    const key = keyOf(cd);
    return this.hiveGenerationAtReady.has(key) && this.hiveGenerationAtReady.get(key) !== hive?.metadata.generation;
  }

  /** Sets up (or keeps) the access and records the outcome; a step's failure is recorded, then rethrown for the queue's backoff. */
  private async converge(
    cd: ClusterDeployment,
    hive: HiveConfig | undefined,
    target: { identity: ClusterIdentity; region: string; inventory: InventoryVPC[] },
    log: Logger,
  ): Promise<ReconcileResult> {
    const plStatus: PrivateLinkStatus = structuredClone(cd.status?.platformStatus?.aws?.privateLink ?? {});
    // The object as last written: every later status write must carry its resourceVersion.
    let current = cd;
    const ready = async (status: 'True' | 'False', reason: string, message: string): Promise<void> => {
      current = await this.writeStatus(current, plStatus, readyConditions(current.status?.conditions, status, reason, message, this.now()).list);
    };
    try {
      const outcome = await this.setUp(current, hive, target, plStatus, log, (reason, message) => ready('False', reason, message));
      if (outcome.kind === 'waiting') {
        log.info({ reason: outcome.reason, retryAfterMs: outcome.retryAfterMs }, outcome.message);
        if (outcome.reason !== undefined) await ready('False', outcome.reason, outcome.message);
        else current = await this.writeStatus(current, plStatus, undefined);
        return { requeueAfterMs: outcome.retryAfterMs };
      }
      await ready('True', REASONS.ready, MESSAGES.ready);
      this.hiveGenerationAtReady.set(keyOf(cd), hive?.metadata.generation);
      if (outcome.principalsChanged) return { requeueAfterMs: 0 };
      return { requeueAfterMs: current.spec.installed === true ? RESYNC_INSTALLED_MS : RESYNC_INSTALLING_MS };
    } catch (err) {
      if (!(err instanceof StepError)) throw err;
      log.warn({ reason: err.reason, ...logFields(err) }, 'PrivateLink reconcile failed');
      await this.recordError(current, plStatus, err.reason, err, log);
      throw err;
    }
  }

  /** Hive's setErrCondition: Failed=True, Ready=False, the same reason and the scrubbed message. */
  private async recordError(cd: ClusterDeployment, pl: PrivateLinkStatus | undefined, reason: string, err: unknown, log: Logger): Promise<void> {
    try {
      const message = err instanceof StepError ? err.conditionMessage : errorMessage(err);
      await this.writeStatus(cd, pl, errConditions(cd.status?.conditions, reason, errorScrub(message), this.now()).list);
    } catch (statusErr) {
      log.warn({ err: errorMessage(statusErr) }, 'could not record the failure in status');
    }
  }

  /**
   * A reinstall under a new infraID: remove the previous attempt's resources once, remember it in
   * Hive's annotation and come back at once. Hive does it when status shows resources
   * (cleanupRequired); Hostwarden also when status shows none (cleanupWanted: by the tag, so
   * resources a crash kept out of status do not leak). Undefined when there is nothing to do.
   */
  private async removePreviousAttempt(cd: ClusterDeployment, hive: HiveConfig | undefined, log: Logger): Promise<ReconcileResult | undefined> {
    const ref = cd.status?.provisionRef?.name;
    if (ref === undefined || ref === '') return undefined;
    const prev = (await readProvision(this.client, cd.metadata.namespace ?? '', ref))?.spec.prevInfraID;
    if (prev === undefined || prev === '' || lastCleanupFor(cd) === prev || !cleanupWanted(cd, true)) return undefined;
    log.info({ prevInfraID: prev }, 'cleaning up PrivateLink resources from previous attempt');
    try {
      await this.cleanup(cd, hive, log, prev);
    } catch (err) {
      log.error(logFields(err), 'error cleaning up PrivateLink resources for ClusterDeployment');
      await this.recordError(cd, undefined, REASONS.cleanupFailed, err, log);
      throw err;
    }
    const annotated = await this.client.request<ClusterDeployment>('PATCH', objectPath(CLUSTER_DEPLOYMENTS, cd.metadata.namespace ?? '', cd.metadata.name), {
      body: { metadata: { annotations: { [LAST_CLEANUP_ANNOTATION]: prev }, resourceVersion: cd.metadata.resourceVersion } },
      contentType: 'application/merge-patch+json',
    });
    const conds = readyConditions(annotated.status?.conditions, 'False', REASONS.previousAttemptCleaned, MESSAGES.previousAttemptCleaned, this.now());
    await this.writeStatus(annotated, null, conds.list);
    return { requeueAfterMs: 0 };
  }

  private async setUp(
    cd: ClusterDeployment,
    hive: HiveConfig | undefined,
    target: { identity: ClusterIdentity; region: string; inventory: InventoryVPC[] },
    plStatus: PrivateLinkStatus,
    log: Logger,
    progress: NonNullable<SetupDeps['progress']>,
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
      progress,
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
    return apiHostFromSecret(await readSecret(this.client, namespace, ref), ref.name);
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

  /**
   * Hive's cleanupClusterDeployment: with the finalizer, remove the resources (cleanupWanted: when
   * status shows some, and by the infraID tag when it shows none), report it in the conditions,
   * then release the finalizer.
   */
  private async cleanupClusterDeployment(cd: ClusterDeployment, hive: HiveConfig | undefined, log: Logger): Promise<ReconcileResult> {
    if (!hasFinalizer(cd, FINALIZER)) return {};
    let current = cd;
    if (cleanupWanted(cd, (await this.knownInfraID(cd)) !== undefined)) current = await this.cleanupAndReport(cd, hive, log);
    else if (cd.spec.preserveOnDelete === true) log.info('preserveOnDelete: leaving the PrivateLink resources in place');
    log.info('removing finalizer from ClusterDeployment');
    await patchFinalizers(this.client, CLUSTER_DEPLOYMENTS, current, { remove: FINALIZER });
    return {};
  }

  /**
   * Hostwarden only (docs/privatelink.md): a ClusterDeprovision of a cluster not being deleted cleans
   * up at once and keeps the finalizer. Undefined when there is no deprovision.
   */
  private async cleanupForDeprovision(cd: ClusterDeployment, hive: HiveConfig | undefined, log: Logger): Promise<ReconcileResult | undefined> {
    if ((await readDeprovision(this.client, cd.metadata.namespace ?? '', cd.metadata.name)) === undefined) return undefined;
    if (cd.spec.preserveOnDelete !== true && cleanupWanted(cd, (await this.knownInfraID(cd)) !== undefined)) await this.cleanupAndReport(cd, hive, log);
    return {};
  }

  /** The cleanup, then status cleared and DeprovisionCleanupComplete; a failure is CleanupForDeprovisionFailed, rethrown. */
  private async cleanupAndReport(cd: ClusterDeployment, hive: HiveConfig | undefined, log: Logger): Promise<ClusterDeployment> {
    try {
      await this.cleanup(cd, hive, log);
    } catch (err) {
      log.error(logFields(err), 'error cleaning up PrivateLink resources for ClusterDeployment');
      await this.recordError(cd, undefined, REASONS.deprovisionCleanupFailed, err, log);
      throw err;
    }
    const conds = readyConditions(cd.status?.conditions, 'False', REASONS.deprovisioned, MESSAGES.deprovisioned, this.now());
    return this.writeStatus(cd, null, conds.list);
  }

  /** The cluster's current infraID: its installed metadata, else its provision's. */
  private async knownInfraID(cd: ClusterDeployment): Promise<string | undefined> {
    const identity = await clusterIdentity(this.client, cd).catch(() => undefined);
    const id = identity?.infraID ?? cd.spec.clusterMetadata?.infraID;
    return id === '' ? undefined : id;
  }

  /**
   * Removes the resources of `infraID` (the cluster's current one by default): the zone status
   * records (as Hive, for a previous attempt too) and the zones named after the API host, then
   * everything carrying the infraID tag.
   */
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
    const kubeconfig = identity?.kubeconfigSecret ?? cd.spec.clusterMetadata?.adminKubeconfigSecretRef;
    const host = kubeconfig === undefined ? undefined : await this.apiHost(cd.metadata.namespace ?? '', kubeconfig).catch(() => undefined);
    await cleanupAccess(
      { hubEc2: hub.ec2, hubRoute53: hub.route53, userEc2: user?.ec2 },
      { infraID: infraID ?? '', zoneId: known?.hostedZoneID, host },
      log,
      this.warned,
    );
  }

  /**
   * Writes the privateLink status (`null` clears it, undefined leaves it) and the conditions list
   * (undefined leaves it) through the status subresource, only when something changed. Returns the
   * object as stored.
   */
  private async writeStatus(cd: ClusterDeployment, pl: PrivateLinkStatus | null | undefined, list: HiveCondition[] | undefined): Promise<ClusterDeployment> {
    const oldPl = cd.status?.platformStatus?.aws?.privateLink;
    const plChanged = pl === null ? oldPl !== undefined : pl !== undefined && JSON.stringify(pl) !== JSON.stringify(oldPl ?? {});
    const condChanged = list !== undefined && JSON.stringify(list) !== JSON.stringify(cd.status?.conditions ?? []);
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

/**
 * Hive's cleanupRequired: only when status records a resource, and not for a deleted cluster with
 * preserveOnDelete that still has PrivateLink enabled.
 */
export function cleanupRequired(cd: ClusterDeployment): boolean {
  const pl = cd.status?.platformStatus?.aws?.privateLink;
  if (pl === undefined) return false;
  if (cd.metadata.deletionTimestamp !== undefined && cd.spec.preserveOnDelete === true && isPrivateLinkEnabled(cd)) return false;
  return (
    (pl.vpcEndpointID ?? '') !== '' || (pl.vpcEndpointService?.id ?? '') !== '' || (pl.vpcEndpointService?.name ?? '') !== '' || (pl.hostedZoneID ?? '') !== ''
  );
}

/**
 * Whether Hostwarden removes a cluster's PrivateLink resources: when Hive's cleanupRequired says so,
 * and also — Hostwarden's difference (docs/privatelink.md) — when status records none but the
 * cluster carries the finalizer and its infraID is known: status lost, or never written after a
 * crash between the AWS create and the status write, must not leak what carries the infraID tag.
 * Never for a deleted cluster with preserveOnDelete and PrivateLink enabled, as Hive.
 */
export function cleanupWanted(cd: ClusterDeployment, infraIDKnown: boolean): boolean {
  if (cleanupRequired(cd)) return true;
  if (cd.metadata.deletionTimestamp !== undefined && cd.spec.preserveOnDelete === true && isPrivateLinkEnabled(cd)) return false;
  return hasFinalizer(cd, FINALIZER) && infraIDKnown;
}

/** The previous infraID already cleaned: Hive's annotation, else the key Hostwarden wrote before. */
export function lastCleanupFor(cd: ClusterDeployment): string | undefined {
  const a = cd.metadata.annotations;
  return a?.[LAST_CLEANUP_ANNOTATION] ?? a?.[LEGACY_CLEANED_PREV_ANNOTATION];
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
