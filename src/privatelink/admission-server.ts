/**
 * The ClusterDeployment admission check over HTTPS (AdmissionReview admission.k8s.io/v1, read and
 * written with src/http/admission-review.ts), for clusters without Hive (deploy/privatelink/standalone):
 * a create enabling PrivateLink where HiveConfig's inventory cannot serve the region is refused
 * exactly as Hive's webhook refuses it (422 Invalid, its field path and wording). Updates are never
 * refused, so a later inventory change never blocks edits or the finalizer's removal.
 * Fails closed: an unreadable review, or a HiveConfig not loaded yet, is denied.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowVerdict, invalidMessage, readReview, unreadableVerdict, writeReview } from '../http/admission-review.ts';
import type { AdmissionRequest, AdmissionVerdict } from '../http/admission-review.ts';
import type { TlsMaterial } from '../http/tls.ts';
import type { ConnectionLimits } from '../http/connection-limit.ts';
import { HttpsServer, notFound, readPost } from '../http/https-server.ts';
import type { Logger } from '../log.ts';
import { privateLinkFieldErrors } from './admission.ts';
import { isPrivateLinkEnabled } from './types.ts';
import type { ClusterDeployment, HiveConfig } from './types.ts';

export const PRIVATELINK_WEBHOOK_PATH = '/validate-clusterdeployments-privatelink';
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const allow = allowVerdict;
const deny = (message: string): AdmissionVerdict => ({ allowed: false, message, fieldErrors: [], warnings: [] });

/**
 * Hive's answer (validateAWSPrivateLink runs on CREATE only; an update of an existing cluster is
 * Hive's immutability rule, not restated here). `loaded` says whether HiveConfig was looked up:
 * before that a create enabling PrivateLink is denied (Hive reads its configuration at start and
 * has no such state; documented difference).
 */
export function reviewClusterDeployment(req: AdmissionRequest, hive: { loaded: boolean; config: HiveConfig | undefined }): AdmissionVerdict {
  const r = req.resource;
  if (r?.group !== 'hive.openshift.io' || r.resource !== 'clusterdeployments' || (req.subResource ?? '') !== '') return allow();
  if (req.operation !== 'CREATE') return allow();
  const cd = req.object as ClusterDeployment | undefined;
  if (cd?.spec === undefined || !isPrivateLinkEnabled(cd)) return allow();
  if (!hive.loaded) return deny('HiveConfig is not loaded yet; enabling PrivateLink cannot be checked, so it is denied: retry shortly');
  const errors = privateLinkFieldErrors(cd, hive.config);
  if (errors.length === 0) return allow();
  const name = req.name ?? cd.metadata?.name ?? '';
  return {
    allowed: false,
    invalid: true,
    message: invalidMessage('ClusterDeployment', 'hive.openshift.io', name, errors),
    fieldErrors: errors,
    resource: { group: 'hive.openshift.io', kind: 'ClusterDeployment', name },
    warnings: [],
  };
}

export interface PrivateLinkAdmissionOptions {
  tls: TlsMaterial;
  hiveConfig: () => { loaded: boolean; config: HiveConfig | undefined };
  logger: Logger;
  /** Connection cap and timeouts (the --http-* flags). */
  limits?: Partial<ConnectionLimits>;
}

export class PrivateLinkAdmissionServer extends HttpsServer {
  private readonly hiveConfig: PrivateLinkAdmissionOptions['hiveConfig'];
  private readonly log: Logger;

  constructor(opts: PrivateLinkAdmissionOptions) {
    super({
      tls: opts.tls,
      logger: opts.logger,
      name: 'ClusterDeployment admission',
      requestLabel: 'admission',
      logFields: { path: PRIVATELINK_WEBHOOK_PATH },
      healthPaths: ['/healthz'],
      ...(opts.limits === undefined ? {} : { limits: opts.limits }),
      handle: (req, res, path) => this.review(req, res, path),
    });
    this.hiveConfig = opts.hiveConfig;
    this.log = opts.logger;
  }

  private async review(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path !== PRIVATELINK_WEBHOOK_PATH) return notFound(res);
    const body = await readPost(req, res, MAX_BODY_BYTES);
    if (body === undefined) return;
    const read = readReview(body);
    const decision = read.ok
      ? reviewClusterDeployment(read.request, this.hiveConfig())
      : unreadableVerdict(`the request could not be read, so it is denied: ${read.error}`);
    const uid = read.ok ? read.request.uid : read.uid;
    if (!decision.allowed)
      this.requestLog.info(
        { uid, namespace: read.ok ? read.request.namespace : undefined, name: read.ok ? read.request.name : undefined, message: decision.message },
        'denied',
      );
    res.writeHead(200, { 'content-type': 'application/json' }).end(writeReview(uid, decision));
  }
}
