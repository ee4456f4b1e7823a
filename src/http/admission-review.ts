/**
 * AdmissionReview admission.k8s.io/v1 on the wire, for every validating webhook Hostwarden serves:
 * reading a request body into an AdmissionRequest, and writing a verdict back with Kubernetes'
 * Status and field-error shapes. Reading never throws; what cannot be read becomes a reason to deny
 * (the servers fail closed).
 */
/** The parts of an admission.k8s.io/v1 AdmissionRequest the decision reads. */
export interface AdmissionRequest {
  uid: string;
  operation: string;
  resource?: { group?: string; version?: string; resource?: string };
  subResource?: string;
  namespace?: string;
  name?: string;
  object?: unknown;
  oldObject?: unknown;
  userInfo?: UserInfo;
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** A field error as apimachinery's field.Error prints it (`Forbidden` prints no value). */
export interface FieldError {
  field: string;
  type: 'Invalid value' | 'Forbidden';
  /** Printed for `Invalid value` only, as apimachinery does. */
  value?: string;
  detail: string;
}

/** What a webhook answers: allowed, or denied with a message (and field errors, for the Status's causes). */
export interface AdmissionVerdict {
  allowed: boolean;
  /** A request that could not be read: 400 BadRequest instead of 403 Forbidden. */
  badRequest?: boolean;
  /**
   * Denied as apimachinery's errors.NewInvalid builds it (the webhook being restated answers so):
   * 422 Invalid, status Failure, causes carrying each error's body (`Forbidden: <detail>`).
   */
  invalid?: boolean;
  /** For a denial: the message the user sees. */
  message: string;
  fieldErrors: FieldError[];
  /** For a denial: the object, as kube's StatusDetails names it (`services "web" is forbidden`). */
  resource?: { name: string; group: string; kind: string };
  warnings: string[];
}

/** Allowed, nothing to say. */
export function allowVerdict(): AdmissionVerdict {
  return { allowed: true, message: '', fieldErrors: [], warnings: [] };
}

/** A field error's text without the field, as apimachinery's field.Error.ErrorBody() prints it. */
export function fieldErrorBody(e: FieldError): string {
  const head = e.type === 'Invalid value' && e.value !== undefined ? `${e.type}: ${JSON.stringify(e.value)}` : e.type;
  return e.detail === '' ? head : `${head}: ${e.detail}`;
}

/** errors.NewInvalid's message: `<Kind>.<group> "<name>" is invalid: <field>: <body>` (several errors in brackets). */
export function invalidMessage(kind: string, group: string, name: string, errors: readonly FieldError[]): string {
  const list = errors.map((e) => `${e.field}: ${fieldErrorBody(e)}`);
  const all = list.length === 1 ? (list[0] ?? '') : `[${list.join(', ')}]`;
  return `${kind}.${group} ${JSON.stringify(name)} is invalid${list.length === 0 ? '' : `: ${all}`}`;
}

/** Denied because the request itself could not be read (400). */
export function unreadableVerdict(message: string): AdmissionVerdict {
  return { allowed: false, badRequest: true, message, fieldErrors: [], warnings: [] };
}

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
    return {
      ok: false,
      uid,
      error: `expected kind AdmissionReview, apiVersion ${ADMISSION_API_VERSION}; got ${JSON.stringify(review['kind'])} ${JSON.stringify(review['apiVersion'])}`,
    };
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
    ...(resource === undefined
      ? {}
      : { resource: { group: str(resource['group']) ?? '', version: str(resource['version']) ?? '', resource: str(resource['resource']) ?? '' } }),
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
 * The AdmissionReview answer for a verdict. Denials carry a Status with code 403 (400 for an
 * unreadable request, 422 for an `invalid` one) and the message; `details` names the object as kube's Forbidden status does
 * and lists the field errors as causes.
 */
export function writeReview(uid: string, decision: AdmissionVerdict): string {
  const response: Record<string, unknown> = { uid, allowed: decision.allowed };
  if (!decision.allowed) response['status'] = decision.invalid === true ? invalidStatus(decision) : deniedStatus(decision);
  if (decision.warnings.length > 0) response['warnings'] = decision.warnings;
  return JSON.stringify({ apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response });
}

function deniedStatus(decision: AdmissionVerdict): Record<string, unknown> {
  const invalid = decision.badRequest === true;
  const causes = decision.fieldErrors.map((e) => ({
    reason: e.type === 'Forbidden' ? 'FieldValueForbidden' : 'FieldValueInvalid',
    field: e.field,
    message: e.detail,
  }));
  const details = {
    ...(decision.resource ?? {}),
    ...(causes.length === 0 ? {} : { causes }),
  };
  return {
    code: invalid ? 400 : 403,
    reason: invalid ? 'BadRequest' : 'Forbidden',
    message: decision.message,
    ...(Object.keys(details).length === 0 ? {} : { details }),
  };
}

/** metav1.Status of errors.NewInvalid (apimachinery), field for field. */
function invalidStatus(decision: AdmissionVerdict): Record<string, unknown> {
  const causes = decision.fieldErrors.map((e) => ({
    reason: e.type === 'Forbidden' ? 'FieldValueForbidden' : 'FieldValueInvalid',
    message: fieldErrorBody(e),
    field: e.field,
  }));
  return {
    status: 'Failure',
    message: decision.message,
    reason: 'Invalid',
    details: { ...(decision.resource ?? {}), causes },
    code: 422,
  };
}
