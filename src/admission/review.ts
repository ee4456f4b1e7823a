/**
 * AdmissionReview admission.k8s.io/v1 on the wire: reading a request body into an
 * AdmissionRequest, and writing a Decision back. Reading never throws; what cannot be read becomes
 * a reason to deny (the server fails closed).
 */
import type { AdmissionRequest, Decision } from './decision.ts';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

export type ReadResult = { ok: true; request: AdmissionRequest } | { ok: false; uid: string; error: string };

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function readReview(body: string): ReadResult {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return { ok: false, uid: '', error: 'the request body is not JSON' };
  }
  const review = asRecord(doc);
  const req = asRecord(review?.['request']);
  const uid = typeof req?.['uid'] === 'string' ? req['uid'] : '';
  if (review === undefined) return { ok: false, uid, error: 'the request body is not an AdmissionReview object' };
  if (review['kind'] !== 'AdmissionReview' || review['apiVersion'] !== ADMISSION_API_VERSION) {
    return { ok: false, uid, error: `expected kind AdmissionReview, apiVersion ${ADMISSION_API_VERSION}; got ${JSON.stringify(review['kind'])} ${JSON.stringify(review['apiVersion'])}` };
  }
  if (req === undefined) return { ok: false, uid, error: 'the AdmissionReview has no request' };
  if (uid === '') return { ok: false, uid, error: 'the AdmissionReview request has no uid' };
  if (typeof req['operation'] !== 'string') return { ok: false, uid, error: 'the AdmissionReview request has no operation' };
  const resource = asRecord(req['resource']);
  const user = asRecord(req['userInfo']);
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const groups = Array.isArray(user?.['groups']) ? (user['groups'] as unknown[]).filter((g): g is string => typeof g === 'string') : undefined;
  const extraRaw = asRecord(user?.['extra']);
  let extra: Record<string, string[]> | undefined;
  if (extraRaw !== undefined) {
    extra = {};
    for (const [k, v] of Object.entries(extraRaw)) if (Array.isArray(v)) extra[k] = v.filter((x): x is string => typeof x === 'string');
  }
  const request: AdmissionRequest = {
    uid,
    operation: req['operation'],
    ...(resource === undefined ? {} : { resource: { group: str(resource['group']) ?? '', version: str(resource['version']) ?? '', resource: str(resource['resource']) ?? '' } }),
    ...(str(req['subResource']) === undefined ? {} : { subResource: str(req['subResource'])! }),
    ...(str(req['namespace']) === undefined ? {} : { namespace: str(req['namespace'])! }),
    ...(str(req['name']) === undefined ? {} : { name: str(req['name'])! }),
    ...(req['object'] === undefined || req['object'] === null ? {} : { object: req['object'] }),
    ...(req['oldObject'] === undefined || req['oldObject'] === null ? {} : { oldObject: req['oldObject'] }),
    ...(user === undefined
      ? {}
      : {
          userInfo: {
            ...(str(user['username']) === undefined ? {} : { username: str(user['username'])! }),
            ...(str(user['uid']) === undefined ? {} : { uid: str(user['uid'])! }),
            ...(groups === undefined ? {} : { groups }),
            ...(extra === undefined ? {} : { extra }),
          },
        }),
  };
  return { ok: true, request };
}

/**
 * The AdmissionReview answer for a decision. Denials carry a Status with code 403 (400 for an
 * unreadable request) and the message; an external-IP denial also names the Service as kube's
 * Forbidden status does (`details.name`, `details.kind: services`), plus the field errors as causes.
 */
export function writeReview(uid: string, decision: Decision): string {
  const response: Record<string, unknown> = { uid, allowed: decision.allowed };
  if (!decision.allowed) {
    const invalid = decision.reason === 'malformed';
    const causes = decision.fieldErrors.map((e) => ({ reason: e.type === 'Forbidden' ? 'FieldValueForbidden' : 'FieldValueInvalid', field: e.field, message: e.detail }));
    const details = {
      ...(decision.name === undefined ? {} : { name: decision.name, group: '', kind: 'services' }),
      ...(causes.length === 0 ? {} : { causes }),
    };
    response['status'] = {
      code: invalid ? 400 : 403,
      reason: invalid ? 'BadRequest' : 'Forbidden',
      message: decision.message,
      ...(Object.keys(details).length === 0 ? {} : { details }),
    };
  }
  if (decision.warnings.length > 0) response['warnings'] = decision.warnings;
  return JSON.stringify({ apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response });
}
