/**
 * The operator's HTTPS webhooks: the validating webhook for ExternalDNS (AdmissionReview v1, the
 * wire format shared with the external-IP admission webhook in src/admission/review.ts) and the
 * CRD conversion webhook (ConversionReview v1). Fails closed: what cannot be read is denied.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readReview, unreadableVerdict, writeReview } from '../http/admission-review.ts';
import type { AdmissionVerdict } from '../http/admission-review.ts';
import type { TlsMaterial } from '../http/tls.ts';
import { errorMessage } from '../errors.ts';
import type { ConnectionLimits } from '../http/connection-limit.ts';
import { HttpsServer, notFound, readPost } from '../http/https-server.ts';
import type { Logger } from '../log.ts';
import { answerConversionReview, convertTo } from './convert.ts';
import { V1BETA1 } from './types.ts';
import type { ExternalDNS } from './types.ts';
import { invalidMessage, validateExternalDNS, validationWarnings } from './validate.ts';

/** The path the upstream operator's ValidatingWebhookConfiguration uses; `/validate` works too. */
export const VALIDATE_PATH = '/validate-externaldns-olm-openshift-io-v1beta1-externaldns';
export const CONVERT_PATH = '/convert';
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const decision = (allowed: boolean, message = '', fieldErrors: AdmissionVerdict['fieldErrors'] = [], warnings: string[] = []): AdmissionVerdict => ({
  allowed,
  message,
  fieldErrors,
  warnings,
});

/** The answer for one AdmissionReview body (pure apart from the platform fact). */
export function admissionAnswer(body: string, openshift: boolean): { uid: string; decision: AdmissionVerdict } {
  const read = readReview(body);
  if (!read.ok) return { uid: read.uid, decision: unreadableVerdict(`the ExternalDNS webhook could not read the request, so it is denied: ${read.error}`) };
  const req = read.request;
  if (req.operation === 'DELETE' || req.object === undefined) return { uid: req.uid, decision: decision(true) };
  let obj: ExternalDNS;
  try {
    obj = convertTo(req.object as Record<string, unknown>, V1BETA1) as unknown as ExternalDNS;
  } catch (err) {
    return { uid: req.uid, decision: unreadableVerdict(`the ExternalDNS webhook could not read the object: ${errorMessage(err)}`) };
  }
  const errors = validateExternalDNS(obj, { openshift });
  if (errors.length === 0) return { uid: req.uid, decision: decision(true, '', [], validationWarnings(obj)) };
  const fieldErrors = errors.map((e) => ({ field: e.field, type: 'Invalid value' as const, detail: e.message }));
  return { uid: req.uid, decision: decision(false, invalidMessage(obj.metadata?.name ?? req.name ?? '', errors), fieldErrors) };
}

export interface OperatorWebhookOptions {
  tls: TlsMaterial;
  logger: Logger;
  /** Read per request: detection may finish after the server starts. */
  openshift: () => boolean;
  /** Connection cap and timeouts (the --http-* flags). */
  limits?: Partial<ConnectionLimits>;
}

export class OperatorWebhookServer extends HttpsServer {
  private readonly openshift: () => boolean;
  private readonly log: Logger;

  constructor(opts: OperatorWebhookOptions) {
    super({
      tls: opts.tls,
      logger: opts.logger,
      name: 'ExternalDNS webhooks',
      requestLabel: 'webhook',
      ...(opts.limits === undefined ? {} : { limits: opts.limits }),
      handle: (req, res, path) => this.review(req, res, path),
    });
    this.openshift = opts.openshift;
    this.log = opts.logger;
  }

  private async review(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path !== VALIDATE_PATH && path !== '/validate' && path !== CONVERT_PATH) return notFound(res);
    const body = await readPost(req, res, MAX_BODY_BYTES);
    if (body === undefined) return;
    if (path === CONVERT_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(answerConversionReview(body));
      return;
    }
    const { uid, decision: d } = admissionAnswer(body, this.openshift());
    res.writeHead(200, { 'content-type': 'application/json' }).end(writeReview(uid, d));
    if (!d.allowed) this.requestLog.info({ uid, message: d.message }, 'ExternalDNS denied');
  }
}
