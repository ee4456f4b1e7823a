/**
 * Wire shapes of the test API server: objects as kube-apiserver stores them (loosely typed, since
 * any kind may arrive) and the `Status` error it answers with.
 */
import { HostwardenError } from '../../../src/errors.ts';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  generateName?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
  [key: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Gone'
  | 'Expired'
  | 'MethodNotAllowed'
  | 'BadRequest'
  | 'UnsupportedMediaType'
  | 'Forbidden'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'TooManyRequests'
  | 'Unauthorized';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  /** Field errors of a 422 Invalid. */
  causes?: { reason: string; message: string; field: string }[];
}

/** A failure the API server reports as a `Status` object with an HTTP code. */
export class ApiError extends HostwardenError {
  readonly status: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails;

  constructor(status: number, reason: StatusReason, message: string, details: StatusDetails = {}) {
    super('KUBE_API_FAILED', message, { transient: status >= 500 || status === 429 });
    this.status = status;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): Record<string, unknown> {
    return statusObject(this.status, this.reason, this.message, this.details);
  }
}

export function statusObject(code: number, reason: string, message: string, details: StatusDetails = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (Object.keys(details).length > 0) out.details = details;
  return out;
}

export function notFound(kindPlural: string, group: string, name: string): ApiError {
  const what = group === '' ? kindPlural : `${kindPlural}.${group}`;
  return new ApiError(404, 'NotFound', `${what} "${name}" not found`, { name, group, kind: kindPlural });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function deepClone<T>(v: T): T {
  return structuredClone(v);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
