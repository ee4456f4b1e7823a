/**
 * The validating webhook for DNSRecords: AdmissionReview admission.k8s.io/v1 over HTTPS at
 * WEBHOOK_PATH, answering with the same rules the reconciler applies (validate.ts). Requests are
 * read with the admission webhook's reader; a review that cannot be read is denied, as a
 * validating webhook must fail closed. Denials are 422 Invalid with one cause per field.
 */
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMISSION_API_VERSION, readReview } from '../admission/review.ts';
import type { TlsMaterial } from '../admission/tls.ts';
import { errorMessage } from '../errors.ts';
import { closeServer, listen } from '../http/listen.ts';
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
  if (unreadable !== undefined) response['status'] = { code: 400, reason: 'BadRequest', message: `the DNSRecord webhook could not read the request, so it is denied: ${unreadable}` };
  else if (problems.length > 0) {
    const message = `DNSRecord.extensions.gardener.cloud ${JSON.stringify(name)} is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join(', ')}`;
    response['status'] = { code: 422, reason: 'Invalid', message, details: { name, group: 'extensions.gardener.cloud', kind: 'DNSRecord', causes: problems.map((p) => ({ reason: 'FieldValueInvalid', field: p.path, message: p.message })) } };
  }
  return JSON.stringify({ apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response });
}

export class DNSRecordWebhook {
  private readonly tls: TlsMaterial;
  private readonly log: Logger;
  private server: Server | undefined;
  /** Decisions made, for metrics and tests. */
  readonly counts = { allowed: 0, denied: 0 };

  constructor(opts: { tls: TlsMaterial; logger: Logger }) {
    this.tls = opts.tls;
    this.log = opts.logger;
  }

  async start(host: string, port: number): Promise<AddressInfo> {
    const server = createServer({ key: this.tls.key, cert: this.tls.cert }, (req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.log.error({ err: errorMessage(err) }, 'DNSRecord admission request failed unexpectedly');
        if (!res.headersSent) res.writeHead(500).end('internal error\n');
        else res.destroy();
      });
    });
    server.requestTimeout = 10_000;
    server.headersTimeout = 10_000;
    this.server = server;
    const address = await listen(server, host, port);
    this.log.info({ address: `${address.address}:${address.port}`, path: WEBHOOK_PATH }, 'DNSRecord validating webhook listening (HTTPS)');
    return address;
  }

  setCertificate(material: TlsMaterial): void {
    this.server?.setSecureContext({ key: material.key, cert: material.cert });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await closeServer(server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' || path === '/readyz') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok\n');
      return;
    }
    if (path !== WEBHOOK_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const body = await readBody(req);
    if (body === undefined) {
      res.writeHead(413, { connection: 'close' }).end(`request body larger than ${MAX_BODY_BYTES} bytes: denied\n`);
      return;
    }
    const read = readReview(body);
    let payload: string;
    let allowed = false;
    if (!read.ok) payload = reviewResponse(read.uid, '', [], read.error);
    else {
      const r = read.request;
      const problems = admissionProblems(r.operation, r.object, r.oldObject);
      allowed = problems.length === 0;
      payload = reviewResponse(r.uid, r.name ?? '', problems);
      if (!allowed) this.log.info({ dnsrecord: `${r.namespace ?? ''}/${r.name ?? ''}`, operation: r.operation, problems }, 'DNSRecord denied');
    }
    this.counts[allowed ? 'allowed' : 'denied']++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(payload);
  }
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
