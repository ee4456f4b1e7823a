/**
 * The operator's HTTPS webhooks: the validating webhook for ExternalDNS (AdmissionReview v1, the
 * wire format shared with the external-IP admission webhook in src/admission/review.ts) and the
 * CRD conversion webhook (ConversionReview v1). Fails closed: what cannot be read is denied.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Decision } from '../admission/decision.ts';
import { readReview, writeReview } from '../admission/review.ts';
import type { TlsMaterial } from '../admission/tls.ts';
import { errorMessage } from '../errors.ts';
import { HttpsServer, readBody } from '../http/https-server.ts';
import type { Logger } from '../log.ts';
import { answerConversionReview, convertTo } from './convert.ts';
import { V1BETA1 } from './types.ts';
import type { ExternalDNS } from './types.ts';
import { invalidMessage, validateExternalDNS } from './validate.ts';

/** The path the upstream operator's ValidatingWebhookConfiguration uses; `/validate` works too. */
export const VALIDATE_PATH = '/validate-externaldns-olm-openshift-io-v1beta1-externaldns';
export const CONVERT_PATH = '/convert';
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const decision = (allowed: boolean, message = '', fieldErrors: Decision['fieldErrors'] = []): Decision => ({
  allowed,
  reason: allowed ? 'within-policy' : 'refused',
  fieldErrors,
  needsOverrideCheck: false,
  message,
  warnings: [],
});

/** The answer for one AdmissionReview body (pure apart from the platform fact). */
export function admissionAnswer(body: string, openshift: boolean): { uid: string; decision: Decision } {
  const read = readReview(body);
  if (!read.ok) return { uid: read.uid, decision: { ...decision(false, `the ExternalDNS webhook could not read the request, so it is denied: ${read.error}`), reason: 'malformed' } };
  const req = read.request;
  if (req.operation === 'DELETE' || req.object === undefined) return { uid: req.uid, decision: decision(true) };
  let obj: ExternalDNS;
  try {
    obj = convertTo(req.object as Record<string, unknown>, V1BETA1) as unknown as ExternalDNS;
  } catch (err) {
    return { uid: req.uid, decision: { ...decision(false, `the ExternalDNS webhook could not read the object: ${errorMessage(err)}`), reason: 'malformed' } };
  }
  const errors = validateExternalDNS(obj, { openshift });
  if (errors.length === 0) return { uid: req.uid, decision: decision(true) };
  const fieldErrors = errors.map((e) => ({ field: e.field, type: 'Invalid value' as const, detail: e.message }));
  return { uid: req.uid, decision: decision(false, invalidMessage(obj.metadata?.name ?? req.name ?? '', errors), fieldErrors) };
}

export interface OperatorWebhookOptions {
  tls: TlsMaterial;
  logger: Logger;
  /** Read per request: detection may finish after the server starts. */
  openshift: () => boolean;
}

export class OperatorWebhookServer {
  private readonly opts: OperatorWebhookOptions;
  private readonly server: HttpsServer;

  constructor(opts: OperatorWebhookOptions) {
    this.opts = opts;
    this.server = new HttpsServer({
      tls: opts.tls,
      logger: opts.logger,
      name: 'ExternalDNS webhooks',
      requestLabel: 'webhook',
      handle: (req, res, path) => this.handle(req, res, path),
    });
  }

  start(host: string, port: number): Promise<AddressInfo> {
    return this.server.start(host, port);
  }

  setCertificate(material: TlsMaterial): void {
    this.server.setCertificate(material);
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path !== VALIDATE_PATH && path !== '/validate' && path !== CONVERT_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain; charset=utf-8' }).end('POST a review\n');
      return;
    }
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === undefined) {
      res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`request body larger than ${MAX_BODY_BYTES} bytes\n`);
      return;
    }
    if (path === CONVERT_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(answerConversionReview(body));
      return;
    }
    const { uid, decision: d } = admissionAnswer(body, this.opts.openshift());
    res.writeHead(200, { 'content-type': 'application/json' }).end(writeReview(uid, d));
    if (!d.allowed) this.opts.logger.info({ uid, message: d.message }, 'ExternalDNS denied');
  }
}
