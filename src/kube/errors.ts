/**
 * Errors from the Kubernetes API. The HTTP status decides whether a retry can help: conflicts,
 * throttling, server errors and network failures are transient; 4xx answers about the request are not.
 */
import { HostwardenError } from '../errors.ts';
import type { ErrorCode } from '../errors.ts';

export class KubeApiError extends HostwardenError {
  /** HTTP status, or 0 when no answer arrived (connection refused, reset, timeout). */
  readonly status: number;
  /** The `reason` of a Kubernetes Status object (`NotFound`, `Conflict`, `Expired`, …). */
  readonly reason: string;

  constructor(message: string, status: number, reason: string, options: { cause?: unknown } = {}) {
    super(codeFor(status), message, { transient: isTransientStatus(status), ...options });
    this.status = status;
    this.reason = reason;
  }
}

function codeFor(status: number): ErrorCode {
  if (status === 0) return 'KUBE_UNREACHABLE';
  if (status === 404) return 'KUBE_NOT_FOUND';
  if (status === 409) return 'KUBE_CONFLICT';
  if (status === 410) return 'KUBE_GONE';
  return 'KUBE_API_FAILED';
}

function isTransientStatus(status: number): boolean {
  return status === 0 || status === 409 || status === 410 || status === 429 || status >= 500;
}

export function isStatus(err: unknown, status: number): boolean {
  return err instanceof KubeApiError && err.status === status;
}
