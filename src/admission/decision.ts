/**
 * The external-IP admission decision, as pure functions: `decide()` judges a request against the
 * policy; when it refuses something, `needsOverrideCheck` asks the caller to put a
 * SubjectAccessReview to the API server, and `applyOverride()` turns its answer into the final
 * decision. No I/O here, so the whole decision table is tested without a server.
 */
import type { AdmissionRequest, AdmissionVerdict, FieldError } from '../http/admission-review.ts';
import { cidrContains, parseIp } from './ip.ts';
import { isDisabled } from './policy.ts';
import type { ExternalIPPolicy } from './policy.ts';

/** Stable codes for metrics and logs. */
export type DecisionReason = 'not-applicable' | 'no-external-ips' | 'within-policy' | 'refused' | 'override' | 'override-check-failed' | 'malformed';

/** The external-IP verdict, with why (for metrics and logs) and whether the override may change it. */
export interface Decision extends AdmissionVerdict {
  reason: DecisionReason;
  /** Something was refused: ask whether the user may override (then call applyOverride). */
  needsOverrideCheck: boolean;
}

/**
 * The SubjectAccessReview that decides the override, minus transport: the attributes OpenShift's
 * plugin authorizes, resource `service` (singular) and no namespace. An external IP attracts
 * traffic from every namespace, so only a grant that holds cluster-wide (a ClusterRoleBinding) may
 * satisfy it; a namespace is deliberately not part of this type.
 */
export interface OverrideQuery {
  user: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
  verb: 'create';
  group: 'network.openshift.io';
  resource: 'service';
  subresource: 'externalips';
}

/** What the API server said, or that it could not say (failed, timed out). */
export type OverrideAnswer = { ok: true; allowed: boolean; reason?: string } | { ok: false; error: string };

/** The plugin's details, word for word. */
export const DISABLED_DETAIL = 'externalIPs have been disabled';
export const NOT_ALLOWED_DETAIL = 'externalIP is not allowed';
export const INVALID_DETAIL = 'externalIPs must be a valid address';

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function allow(reason: DecisionReason, warnings: string[] = []): Decision {
  return { allowed: true, reason, fieldErrors: [], needsOverrideCheck: false, message: '', warnings };
}

/** A denial for a request that could not be read; never asks for an override. */
export function malformed(message: string): Decision {
  return { allowed: false, badRequest: true, reason: 'malformed', fieldErrors: [], needsOverrideCheck: false, message, warnings: [] };
}

function isServiceRequest(req: AdmissionRequest): boolean {
  const r = req.resource;
  return r !== undefined && (r.group ?? '') === '' && r.resource === 'services';
}

/**
 * `status.loadBalancer.ingress[0].ip` of the old object, when the exemption applies. Compared as
 * text, as the plugin compares it: the address a load balancer controller wrote is canonical.
 */
function exemptIngressIp(policy: ExternalIPPolicy, req: AdmissionRequest, spec: Record<string, unknown>): string | undefined {
  if (!policy.allowIngressIP || req.operation !== 'UPDATE' || spec['type'] !== 'LoadBalancer') return undefined;
  const old = asRecord(req.oldObject);
  const ingress = asRecord(asRecord(old?.['status'])?.['loadBalancer'])?.['ingress'];
  const first = Array.isArray(ingress) ? asRecord(ingress[0]) : undefined;
  const ip = first?.['ip'];
  return typeof ip === 'string' && ip !== '' ? ip : undefined;
}

function formatError(e: FieldError): string {
  const value = e.type === 'Invalid value' && e.value !== undefined ? `: ${JSON.stringify(e.value)}` : '';
  return `${e.field}: ${e.type}${value}: ${e.detail}`;
}

/** apimachinery's aggregate error text: one error alone, several deduplicated in brackets. */
function formatErrors(errors: readonly FieldError[]): string {
  const unique = [...new Set(errors.map(formatError))];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** The name kube's admission.NewForbidden reports: the request's, the object's, its generateName, or "Unknown". */
function serviceName(req: AdmissionRequest): string {
  if (req.name !== undefined && req.name !== '') return req.name;
  const meta = asRecord(asRecord(req.object)?.['metadata']);
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return str(meta?.['name']) || str(meta?.['generateName']) || 'Unknown';
}

/** Each entry on its own, reported by index; the ingress IP (as written) is never refused. */
function judgeEntries(policy: ExternalIPPolicy, entries: readonly unknown[], ingressIp: string | undefined): FieldError[] {
  const errors: FieldError[] = [];
  entries.forEach((entry, i) => {
    const field = `spec.externalIPs[${i}]`;
    const ip = typeof entry === 'string' ? parseIp(entry) : undefined;
    if (ip === undefined) {
      errors.push({ field, type: 'Forbidden', detail: INVALID_DETAIL });
      return;
    }
    if (entry === ingressIp) return;
    const rejected = policy.reject.some((r) => cidrContains(r, ip));
    const outside = policy.admit.length > 0 && !policy.admit.some((r) => cidrContains(r, ip));
    if (rejected || outside) errors.push({ field, type: 'Forbidden', detail: NOT_ALLOWED_DETAIL });
  });
  return errors;
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

  const ingressIp = exemptIngressIp(policy, req, spec);
  let errors: FieldError[];
  if (isDisabled(policy)) {
    // Disabled: only a list that is exactly the ingress IP passes, as in the plugin.
    const onlyIngressIp = raw.length === 1 && ingressIp !== undefined && raw[0] === ingressIp;
    errors = onlyIngressIp ? [] : [{ field: 'spec.externalIPs', type: 'Forbidden', detail: DISABLED_DETAIL }];
  } else {
    errors = judgeEntries(policy, raw, ingressIp);
  }
  if (errors.length === 0) return allow('within-policy');
  const name = serviceName(req);
  const message = `services ${JSON.stringify(name)} is forbidden: ${formatErrors(errors)}`;
  // As in the plugin, every refusal (an unparsable address too) goes to the override check.
  const resource = { name, group: '', kind: 'services' };
  return { allowed: false, reason: 'refused', fieldErrors: errors, needsOverrideCheck: true, message, resource, warnings: [] };
}

/** The SubjectAccessReview to ask for a refused request: may this user override the ranges, cluster-wide? */
export function overrideQuery(req: AdmissionRequest): OverrideQuery {
  const u = req.userInfo ?? {};
  return {
    user: u.username ?? '',
    ...(u.uid === undefined || u.uid === '' ? {} : { uid: u.uid }),
    groups: u.groups ?? [],
    ...(u.extra === undefined ? {} : { extra: u.extra }),
    verb: 'create',
    group: 'network.openshift.io',
    resource: 'service',
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
  const warning = `externalIPs admitted by the cluster-wide override (create service/externalips in network.openshift.io) despite: ${formatErrors(refused.fieldErrors)}`;
  return allow('override', [warning]);
}
