/**
 * The admission webhook over HTTPS: AdmissionReview admission.k8s.io/v1 POSTed to
 * /validate-services-externalips (or /), plus /healthz and /metrics. Fails closed: a body that
 * cannot be read or an override check that fails is answered with a denial that says why, and no
 * request can take the process down.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { Logger } from '../log.ts';
import { applyOverride, decide, malformed, overrideQuery } from './decision.ts';
import type { AdmissionRequest } from '../http/admission-review.ts';
import type { Decision } from './decision.ts';
import type { AdmissionMetrics } from './metrics.ts';
import type { ExternalIPPolicy } from './policy.ts';
import { readReview, writeReview } from '../http/admission-review.ts';
import type { OverrideChecker } from './sar.ts';
import type { TlsMaterial } from '../http/tls.ts';
import type { ConnectionLimits } from '../http/connection-limit.ts';
import { HttpsServer, notFound, readPost } from '../http/https-server.ts';

export const WEBHOOK_PATH = '/validate-services-externalips';
/** An AdmissionReview holds the object twice (object, oldObject); Kubernetes objects stay under 1.5 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface AdmissionServerOptions {
  /** The policy in force now; read per request, so a live source can replace it. */
  policy: () => ExternalIPPolicy;
  checker: OverrideChecker;
  tls: TlsMaterial;
  logger: Logger;
  registry: MetricsRegistry;
  metrics: AdmissionMetrics;
  maxBodyBytes?: number;
  /** Time allowed to receive a whole request. */
  readTimeoutMs?: number;
  /** Connection cap and timeouts (the --http-* flags). */
  limits?: Partial<ConnectionLimits>;
}

export class AdmissionServer extends HttpsServer {
  private readonly opts: AdmissionServerOptions;
  private readonly log: Logger;
  private readonly maxBodyBytes: number;

  constructor(opts: AdmissionServerOptions) {
    super({
      tls: opts.tls,
      logger: opts.logger,
      name: 'admission webhook',
      requestLabel: 'admission',
      logFields: { path: WEBHOOK_PATH },
      ...(opts.readTimeoutMs === undefined ? {} : { readTimeoutMs: opts.readTimeoutMs }),
      ...(opts.limits === undefined ? {} : { limits: opts.limits }),
      handle: (req, res, path) => this.review(req, res, path),
    });
    this.opts = opts;
    this.log = opts.logger;
    this.maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    opts.metrics.certificateExpiry.set(opts.tls.notAfter);
  }

  /** New connections get the new certificate; open ones keep theirs. */
  override setCertificate(material: TlsMaterial): void {
    super.setCertificate(material);
    this.opts.metrics.certificateReloads.inc();
    this.opts.metrics.certificateExpiry.set(material.notAfter);
  }

  private async review(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === '/metrics') {
      const text = await this.opts.registry.metrics();
      res.writeHead(200, { 'content-type': this.opts.registry.contentType }).end(text);
      return;
    }
    if (path !== WEBHOOK_PATH && path !== '/') return notFound(res);
    const body = await readPost(req, res, this.maxBodyBytes);
    if (body === undefined) return;
    const started = process.hrtime.bigint();
    const read = readReview(body);
    let uid: string;
    let decision: Decision;
    let asked = false;
    if (!read.ok) {
      uid = read.uid;
      decision = malformed(`the admission webhook could not read the request, so it is denied: ${read.error}`);
    } else {
      uid = read.request.uid;
      decision = decide(this.opts.policy(), read.request);
      if (decision.needsOverrideCheck) {
        asked = true;
        const answer = await this.opts.checker.check(overrideQuery(read.request));
        this.opts.metrics.overrideChecks.inc({ result: !answer.ok ? 'error' : answer.allowed ? 'allowed' : 'denied' });
        decision = applyOverride(decision, answer);
      }
    }
    const payload = writeReview(uid, decision);
    res.writeHead(200, { 'content-type': 'application/json' }).end(payload);
    this.opts.metrics.decisions.inc({ result: decision.allowed ? 'allowed' : 'denied', reason: decision.reason });
    this.opts.metrics.latency.observe({ override_check: asked ? 'yes' : 'no' }, Number(process.hrtime.bigint() - started) / 1e9);
    this.logDecision(read.ok ? read.request : undefined, decision);
  }

  private logDecision(req: AdmissionRequest | undefined, d: Decision): void {
    if (d.reason === 'not-applicable' || d.reason === 'no-external-ips' || d.reason === 'within-policy') {
      if (this.log.isLevelEnabled('debug')) this.log.debug({ uid: req?.uid, namespace: req?.namespace, service: req?.name, reason: d.reason }, 'admitted');
      return;
    }
    const fields = { uid: req?.uid, namespace: req?.namespace, service: req?.name, user: req?.userInfo?.username, reason: d.reason };
    if (d.allowed) this.requestLog.info({ ...fields, warning: d.warnings[0] }, 'externalIPs admitted by the override');
    else this.requestLog.info({ ...fields, message: d.message }, 'denied');
  }
}
