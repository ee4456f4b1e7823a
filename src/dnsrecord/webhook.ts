/**
 * The validating webhook for DNSRecords: AdmissionReview admission.k8s.io/v1 over HTTPS at
 * WEBHOOK_PATH, answering with the same rules the reconciler applies (validate.ts). Requests are
 * read with the admission webhook's reader; a review that cannot be read is denied, as a
 * validating webhook must fail closed. Denials are 422 Invalid with one cause per field.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMISSION_API_VERSION, readReview } from '../http/admission-review.ts';
import type { TlsMaterial } from '../http/tls.ts';
import type { ConnectionLimits } from '../http/connection-limit.ts';
import { HttpsServer, notFound, readPost } from '../http/https-server.ts';
import type { Logger } from '../log.ts';
import type { FieldProblem } from './validate.ts';
import { validateSpec, validateUpdate } from './validate.ts';

export const WEBHOOK_PATH = '/validate-extensions-gardener-cloud-v1alpha1-dnsrecord';
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The problems of one admission request; none for operations that change no spec. */
export function admissionProblems(operation: string, object: unknown, oldObject: unknown): FieldProblem[] {
  if (operation === 'CREATE') return validateSpec((object as { spec?: unknown } | undefined)?.spec);
  if (operation === 'UPDATE') return validateUpdate(oldObject, object);
  return [];
}

export function reviewResponse(uid: string, name: string, problems: readonly FieldProblem[], unreadable?: string): string {
  const response: Record<string, unknown> = { uid, allowed: problems.length === 0 && unreadable === undefined };
  if (unreadable !== undefined)
    response['status'] = { code: 400, reason: 'BadRequest', message: `the DNSRecord webhook could not read the request, so it is denied: ${unreadable}` };
  else if (problems.length > 0) {
    const message = `DNSRecord.extensions.gardener.cloud ${JSON.stringify(name)} is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join(', ')}`;
    response['status'] = {
      code: 422,
      reason: 'Invalid',
      message,
      details: {
        name,
        group: 'extensions.gardener.cloud',
        kind: 'DNSRecord',
        causes: problems.map((p) => ({ reason: 'FieldValueInvalid', field: p.path, message: p.message })),
      },
    };
  }
  return JSON.stringify({ apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response });
}

export class DNSRecordWebhook extends HttpsServer {
  private readonly log: Logger;
  /** Decisions made, for metrics and tests. */
  readonly counts = { allowed: 0, denied: 0 };

  constructor(opts: { tls: TlsMaterial; logger: Logger; limits?: Partial<ConnectionLimits> }) {
    super({
      tls: opts.tls,
      logger: opts.logger,
      name: 'DNSRecord validating webhook',
      requestLabel: 'DNSRecord admission',
      logFields: { path: WEBHOOK_PATH },
      ...(opts.limits === undefined ? {} : { limits: opts.limits }),
      handle: (req, res, path) => this.review(req, res, path),
    });
    this.log = opts.logger;
  }

  private async review(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path !== WEBHOOK_PATH) return notFound(res);
    const body = await readPost(req, res, MAX_BODY_BYTES);
    if (body === undefined) return;
    const read = readReview(body);
    let payload: string;
    let allowed = false;
    if (!read.ok) payload = reviewResponse(read.uid, '', [], read.error);
    else {
      const r = read.request;
      const problems = admissionProblems(r.operation, r.object, r.oldObject);
      allowed = problems.length === 0;
      payload = reviewResponse(r.uid, r.name ?? '', problems);
      if (!allowed) this.requestLog.info({ dnsrecord: `${r.namespace ?? ''}/${r.name ?? ''}`, operation: r.operation, problems }, 'DNSRecord denied');
    }
    this.counts[allowed ? 'allowed' : 'denied']++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(payload);
  }
}
