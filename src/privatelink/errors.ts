/**
 * Errors of the PrivateLink controller. A failed step carries the condition reason it reports, so
 * the reconciler can set `AWSPrivateLinkFailed` with the reason and the AWS error text in one place.
 */
import { HostwardenError, errorMessage } from '../errors.ts';
import { awsErrorCode, isRetryable } from '../aws/retry.ts';
import type { FailureReason } from './types.ts';

/** An AWS call failed; `awsCode` keeps the service's error code (`InvalidVpcEndpointId.NotFound`). */
export class AwsCallError extends HostwardenError {
  readonly awsCode: string;
  readonly action: string;
  constructor(action: string, cause: unknown) {
    const code = awsErrorCode(cause);
    super('PRIVATELINK_AWS_FAILED', `${action}: ${code === '' ? '' : `${code}: `}${errorMessage(cause)}`, { transient: isRetryable(cause), cause });
    this.awsCode = code;
    this.action = action;
  }
}

/** A reconcile step failed; `reason` is the condition reason Hive uses for it. */
export class StepError extends HostwardenError {
  readonly reason: FailureReason;
  constructor(reason: FailureReason, message: string, cause?: unknown) {
    super('PRIVATELINK_STEP_FAILED', message, { transient: true, cause });
    this.reason = reason;
  }
}

const NOT_FOUND =
  /NotFound|NoSuch|^InvalidVpcEndpointServiceId|^InvalidVpcEndpointId|^VPCAssociationNotFound|^VPCAssociationAuthorizationNotFound|^LoadBalancerNotFound/;

/** AWS says the thing is not there: cleanup counts it as done. */
export function isNotFound(err: unknown): boolean {
  const code = err instanceof AwsCallError ? err.awsCode : awsErrorCode(err);
  return NOT_FOUND.test(code);
}

/** Runs `fn`, turning any failure into a StepError with `reason` (StepErrors pass through). */
export async function step<T>(reason: FailureReason, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StepError) throw err;
    throw new StepError(reason, errorMessage(err), err);
  }
}
