/**
 * The external-IP admission decision, as pure functions: `decide()` judges a request against the
 * policy; when it refuses something, `needsOverrideCheck` asks the caller to put a
 * SubjectAccessReview to the API server, and `applyOverride()` turns its answer into the final
 * decision. No I/O here, so the whole decision table is tested without a server.
 */
import { cidrContains, parseIp, sameIp } from './ip.ts';
import type { IpAddress } from './ip.ts';
import { isDisabled } from './policy.ts';
import type { ExternalIPPolicy } from './policy.ts';

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

export interface FieldError {
  field: string;
  /** Kubernetes field error type, as it prints: "Invalid value", "Forbidden". */
  type: 'Invalid value' | 'Forbidden';
  value?: string;
  detail: string;
}

/** Stable codes for metrics and logs. */
export type DecisionReason =
  | 'not-applicable'
  | 'no-external-ips'
  | 'within-policy'
  | 'refused'
  | 'override'
  | 'override-check-failed'
  | 'malformed';

export interface Decision {
  allowed: boolean;
  reason: DecisionReason;
  fieldErrors: FieldError[];
  /** Something was refused: ask whether the user may override (then call applyOverride). */
  needsOverrideCheck: boolean;
  /** For a denial: the message the user sees. */
  message: string;
  warnings: string[];
}

/** The SubjectAccessReview that decides the override, minus transport. */
export interface OverrideQuery {
  user: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
  namespace: string;
  verb: 'create';
  group: 'network.openshift.io';
  resource: 'services';
  subresource: 'externalips';
}

/** What the API server said, or that it could not say (failed, timed out). */
export type OverrideAnswer = { ok: true; allowed: boolean; reason?: string } | { ok: false; error: string };

export const DISABLED_DETAIL = 'externalIPs have been disabled';
export const NOT_ALLOWED_DETAIL = 'externalIP is not allowed';
export const INVALID_DETAIL = 'must be a valid IP address';

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function allow(reason: DecisionReason, warnings: string[] = []): Decision {
  return { allowed: true, reason, fieldErrors: [], needsOverrideCheck: false, message: '', warnings };
}

/** A denial for a request that could not be read; never asks for an override. */
export function malformed(message: string): Decision {
  return { allowed: false, reason: 'malformed', fieldErrors: [], needsOverrideCheck: false, message, warnings: [] };
}

function isServiceRequest(req: AdmissionRequest): boolean {
  const r = req.resource;
  return r !== undefined && (r.group ?? '') === '' && r.resource === 'services';
}

/** `status.loadBalancer.ingress[0].ip` of the old object, when the exemption applies. */
function exemptIngressIp(policy: ExternalIPPolicy, req: AdmissionRequest, spec: Record<string, unknown>): IpAddress | undefined {
  if (!policy.allowIngressIP || req.operation !== 'UPDATE' || spec['type'] !== 'LoadBalancer') return undefined;
  const old = asRecord(req.oldObject);
  const ingress = asRecord(asRecord(old?.['status'])?.['loadBalancer'])?.['ingress'];
  const first = Array.isArray(ingress) ? asRecord(ingress[0]) : undefined;
  const ip = first?.['ip'];
  return typeof ip === 'string' ? parseIp(ip) : undefined;
}

function formatErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.type}${e.value === undefined ? '' : `: ${JSON.stringify(e.value)}`}: ${e.detail}`).join(', ');
}

function serviceName(req: AdmissionRequest): string {
  const meta = asRecord(asRecord(req.object)?.['metadata']);
  const name = req.name !== undefined && req.name !== '' ? req.name : typeof meta?.['name'] === 'string' ? meta['name'] : '';
  const generate = typeof meta?.['generateName'] === 'string' ? `${meta['generateName']}*` : '';
  return name !== '' ? name : generate;
}

export function decide(policy: ExternalIPPolicy, req: AdmissionRequest): Decision {
  if (!isServiceRequest(req) || (req.subResource ?? '') !== '') return allow('not-applicable');
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return allow('not-applicable');
  const svc = asRecord(req.object);
  if (svc === undefined) return malformed(`${req.operation} of a Service without the Service object`);
  const spec = asRecord(svc['spec']) ?? {};
  const raw = spec['externalIPs'];
  if (raw === undefined || raw === null) return allow('no-external-ips');
  if (!Array.isArray(raw)) return malformed('spec.externalIPs is not a list');
  if (raw.length === 0) return allow('no-external-ips');

  const exempt = exemptIngressIp(policy, req, spec);
  const isExempt = (text: unknown): boolean => {
    if (exempt === undefined || typeof text !== 'string') return false;
    const ip = parseIp(text);
    return ip !== undefined && sameIp(ip, exempt);
  };

  const errors: FieldError[] = [];
  if (isDisabled(policy)) {
    if (!raw.every(isExempt)) {
      const detail = `${DISABLED_DETAIL} (no allowed or rejected ranges are configured, so every externalIP is refused)`;
      errors.push({ field: 'spec.externalIPs', type: 'Forbidden', detail });
    }
  } else {
    raw.forEach((entry, i) => {
      const field = `spec.externalIPs[${i}]`;
      const text = typeof entry === 'string' ? entry : JSON.stringify(entry);
      const ip = typeof entry === 'string' ? parseIp(entry) : undefined;
      if (ip === undefined) {
        errors.push({ field, type: 'Invalid value', value: text, detail: INVALID_DETAIL });
        return;
      }
      if (isExempt(entry)) return;
      const rejected = policy.reject.some((r) => cidrContains(r, ip));
      const outside = policy.admit.length > 0 && !policy.admit.some((r) => cidrContains(r, ip));
      if (rejected || outside) errors.push({ field, type: 'Invalid value', value: text, detail: NOT_ALLOWED_DETAIL });
    });
  }
  if (errors.length === 0) return allow('within-policy');
  const namespace = req.namespace ?? '';
  const message = `Service "${serviceName(req)}"${namespace === '' ? '' : ` in namespace "${namespace}"`} is forbidden: ${formatErrors(errors)}`;
  // The override widens the ranges; it never makes an unparsable address acceptable.
  const overridable = errors.every((e) => e.detail !== INVALID_DETAIL);
  return { allowed: false, reason: 'refused', fieldErrors: errors, needsOverrideCheck: overridable, message, warnings: [] };
}

/** The SubjectAccessReview to ask for a refused request: may this user override the ranges? */
export function overrideQuery(req: AdmissionRequest): OverrideQuery {
  const u = req.userInfo ?? {};
  return {
    user: u.username ?? '',
    ...(u.uid === undefined || u.uid === '' ? {} : { uid: u.uid }),
    groups: u.groups ?? [],
    ...(u.extra === undefined ? {} : { extra: u.extra }),
    namespace: req.namespace ?? '',
    verb: 'create',
    group: 'network.openshift.io',
    resource: 'services',
    subresource: 'externalips',
  };
}

/** The final decision for a refused request, from the override check's answer. Fails closed. */
export function applyOverride(refused: Decision, answer: OverrideAnswer): Decision {
  if (!refused.needsOverrideCheck) return refused;
  if (!answer.ok) {
    return {
      ...refused,
      reason: 'override-check-failed',
      needsOverrideCheck: false,
      message: `${refused.message} (and whether you may override this could not be checked: ${answer.error})`,
    };
  }
  if (!answer.allowed) return { ...refused, needsOverrideCheck: false };
  const warning = `externalIPs outside the allowed ranges admitted by the override (create services/externalips in network.openshift.io): ${formatErrors(refused.fieldErrors)}`;
  return allow('override', [warning]);
}
