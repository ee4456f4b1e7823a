/**
 * Reconciles one ExternalDNS: credentials (copied Secret, or a CredentialsRequest on
 * OpenShift), the operand objects, and the status. Reads the object from the API by name each time;
 * the controller (controller.ts) decides when. Every write is skipped when nothing would change.
 */
import { errorMessage } from '../errors.ts';
import type { KubeClient } from '../kube/client.ts';
import { setCondition, hasFinalizer, patchFinalizers, findCondition } from '../kube/conditions.ts';
import type { Condition, ConditionInput } from '../kube/conditions.ts';
import { isStatus } from '../kube/errors.ts';
import { collectionPath, objectPath } from '../kube/resource.ts';
import type { KubeResource } from '../kube/resource.ts';
import type { ReconcileResult } from '../kube/work-queue.ts';
import type { Logger } from '../log.ts';
import { isStsSecret } from './aws-sts.ts';
import { withDefaults } from './defaults.ts';
import { buildOperand, credentialsSecretName, operandName, userSecretRef } from './operand.ts';
import type { OperandSettings, SecretData } from './operand.ts';
import { credentialsRequest, credentialsRequestPath, platformSuppliesCredentials } from './platform.ts';
import { CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, CREDENTIALS_REQUESTS, DEPLOYMENTS, PODS, SECRETS, SERVICE_ACCOUNTS } from './resources.ts';
import { deploymentConditions } from './status.ts';
import type { DeploymentView, PodView } from './status.ts';
import { CONDITION, EXTERNALDNSES, LEGACY_FINALIZER, REASON } from './types.ts';
import type { ExternalDNS, ExternalDNSStatus } from './types.ts';
import { validateExternalDNS } from './validate.ts';

export const FIELD_MANAGER = 'hostwarden-operator';
/** How soon a missing Secret is looked for again (its creation also triggers a reconcile). */
export const SECRET_RETRY_MS = 30_000;

export interface ReconcilerOptions {
  client: Pick<KubeClient, 'request'>;
  logger: Logger;
  operand: OperandSettings;
  /** Where the users' credentials Secrets live (`--operator-namespace`). */
  operatorNamespace: string;
  now?: () => Date;
}

type Obj = Record<string, unknown> & { metadata?: { resourceVersion?: string } };

export class ExternalDNSReconciler {
  private readonly client: Pick<KubeClient, 'request'>;
  private readonly log: Logger;
  private readonly opts: ReconcilerOptions;
  private readonly now: () => Date;

  constructor(opts: ReconcilerOptions) {
    this.opts = opts;
    this.client = opts.client;
    this.log = opts.logger;
    this.now = opts.now ?? (() => new Date());
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    let ed: ExternalDNS;
    try {
      ed = await this.client.request<ExternalDNS>('GET', objectPath(EXTERNALDNSES, '', name));
    } catch (err) {
      if (isStatus(err, 404)) return {};
      throw err;
    }
    // No finalizer: every operand object (and the CredentialsRequest) has an owner reference to the
    // ExternalDNS, so the garbage collector removes them even when the operator is gone, and nothing
    // outside the cluster needs cleaning up (records stay, as under upstream; the Cloud Credential
    // Operator revokes minted credentials through its own finalizer on the CredentialsRequest).
    // Objects stored by an older operator still carry LEGACY_FINALIZER: it is removed.
    if (hasFinalizer(ed, LEGACY_FINALIZER)) {
      ed = await patchFinalizers(this.client, EXTERNALDNSES, ed, { remove: LEGACY_FINALIZER });
      this.log.info({ externaldns: name }, 'legacy finalizer removed');
    }
    if (ed.metadata.deletionTimestamp !== undefined) return {};

    const conditions: ConditionInput[] = [];
    const og = ed.metadata.generation === undefined ? {} : { observedGeneration: ed.metadata.generation };
    const problems = validateExternalDNS(ed, { openshift: this.opts.operand.platform.openshift });
    if (problems.length > 0) {
      // Objects that predate the webhook (or got past it) still get a clear answer.
      conditions.push({
        type: CONDITION.deploymentAvailable,
        status: 'False',
        reason: REASON.unsupportedSpec,
        message: problems.map((p) => p.message).join('; '),
        ...og,
      });
      await this.writeStatus(ed, conditions);
      return {};
    }

    const secret = await this.credentials(ed, conditions);
    if (secret === 'missing') {
      await this.writeStatus(ed, conditions);
      return { requeueAfterMs: SECRET_RETRY_MS };
    }
    const objects = buildOperand(ed, this.opts.operand, secret);
    const ns = this.opts.operand.namespace;
    await this.apply(SERVICE_ACCOUNTS, ns, objects.serviceAccount);
    await this.apply(CLUSTER_ROLES, '', objects.clusterRole as unknown as Obj);
    await this.apply(CLUSTER_ROLE_BINDINGS, '', objects.clusterRoleBinding as unknown as Obj);
    if (objects.secret !== undefined) await this.apply(SECRETS, ns, objects.secret);
    // Credentials taken out of the spec: their copy goes too (unless the platform minted it).
    else if (!platformSuppliesCredentials(ed, this.opts.operand.platform)) await this.deleteIfPresent(objectPath(SECRETS, ns, credentialsSecretName(ed)));
    const deployment = (await this.apply(DEPLOYMENTS, ns, objects.deployment)) as DeploymentView;
    const pods = await this.client.request<{ items?: PodView[] }>('GET', collectionPath(PODS, ns), {
      query: { labelSelector: `app.kubernetes.io/instance=${operandName(ed)}` },
    });
    conditions.push(...deploymentConditions(deployment, pods.items ?? [], ed.metadata.generation));
    await this.writeStatus(ed, conditions, objects.zones);
    return {};
  }

  /** The Secret to copy (undefined: none needed), or 'missing' with the condition saying why. */
  private async credentials(ed: ExternalDNS, conditions: ConditionInput[]): Promise<SecretData | undefined | 'missing'> {
    const spec = withDefaults(ed.spec);
    const og = ed.metadata.generation === undefined ? {} : { observedGeneration: ed.metadata.generation };
    const ref = userSecretRef(spec);
    const set = (status: 'True' | 'False', reason: string, message: string): void => {
      conditions.push({ type: CONDITION.credentialsSecretExists, status, reason, message, ...og });
    };
    if (ref === undefined && platformSuppliesCredentials(ed, this.opts.operand.platform)) {
      await this.apply(
        CREDENTIALS_REQUESTS,
        '',
        credentialsRequest(ed, this.opts.operand.namespace, this.opts.operand.platform.awsRegion),
        credentialsRequestPath(ed),
      );
      const minted = await this.getOrUndefined<SecretData>(objectPath(SECRETS, this.opts.operand.namespace, credentialsSecretName(ed)));
      if (minted === undefined) {
        set(
          'False',
          REASON.credentialsRequested,
          `waiting for the Cloud Credential Operator to write Secret ${this.opts.operand.namespace}/${credentialsSecretName(ed)}`,
        );
        return 'missing';
      }
      const how = isStsSecret(minted.data ?? {}) ? ' (STS: a role and the projected service-account token)' : '';
      set('True', REASON.secretFound, `Secret ${this.opts.operand.namespace}/${credentialsSecretName(ed)} minted from a CredentialsRequest${how}`);
      return { data: minted.data ?? {} };
    }
    if (ref === undefined) {
      set('True', REASON.noSecretNeeded, 'the provider needs no credentials Secret');
      return undefined;
    }
    const found = await this.getOrUndefined<SecretData>(objectPath(SECRETS, this.opts.operatorNamespace, ref.name));
    if (found === undefined) {
      set('False', REASON.secretNotFound, `Secret ${this.opts.operatorNamespace}/${ref.name} not found`);
      return 'missing';
    }
    set('True', REASON.secretFound, `Secret ${this.opts.operatorNamespace}/${ref.name} found`);
    return { data: found.data ?? {} };
  }

  private async getOrUndefined<T>(path: string): Promise<T | undefined> {
    try {
      return await this.client.request<T>('GET', path);
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  }

  /** Server-side apply: creates, or changes only what differs. Returns the stored object. */
  private async apply(resource: KubeResource, ns: string, obj: Obj, path?: string): Promise<Obj> {
    const meta = obj['metadata'] as { name: string; namespace?: string };
    const target = path ?? objectPath(resource, ns === '' ? (meta.namespace ?? '') : ns, meta.name);
    return this.client.request<Obj>('PATCH', target, {
      body: obj,
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: FIELD_MANAGER, force: true },
    });
  }

  private async deleteIfPresent(path: string): Promise<void> {
    try {
      await this.client.request('DELETE', path);
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
  }

  /** Patches status only when it changes; the resourceVersion guards the operand's own condition. */
  private async writeStatus(ed: ExternalDNS, inputs: readonly ConditionInput[], zones?: readonly string[]): Promise<void> {
    const now = this.now();
    let list: Condition[] = [...(ed.status?.conditions ?? [])];
    for (const c of inputs) list = setCondition(list, c, now);
    if (findCondition(list, CONDITION.providerAuthorized) === undefined) {
      list = setCondition(
        list,
        { type: CONDITION.providerAuthorized, status: 'Unknown', reason: REASON.notYetReported, message: 'the operand has not synchronised yet' },
        now,
      );
    }
    const next: ExternalDNSStatus = { ...ed.status, conditions: list };
    if (ed.metadata.generation !== undefined) next.observedGeneration = ed.metadata.generation;
    if (zones !== undefined && zones.length > 0) next.zones = [...zones];
    if (JSON.stringify(next) === JSON.stringify(ed.status ?? {})) return;
    try {
      await this.client.request('PATCH', `${objectPath(EXTERNALDNSES, '', ed.metadata.name)}/status`, {
        body: { metadata: { resourceVersion: ed.metadata.resourceVersion }, status: next },
        contentType: 'application/merge-patch+json',
      });
    } catch (err) {
      this.log.debug({ externaldns: ed.metadata.name, err: errorMessage(err) }, 'status write failed');
      throw err;
    }
  }
}
