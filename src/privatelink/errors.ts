/**
 * Errors of the PrivateLink controller. A failed step carries the condition reason it reports, so
 * the reconciler can set `AWSPrivateLinkFailed` with the reason and the AWS error text in one place.
 */
import { HostwardenError, errorMessage } from '../errors.ts';
import { awsErrorCode, isRetryable } from '../aws/retry.ts';
import type { FailureReason } from './types.ts';

/**
 * An AWS call failed; `awsCode` keeps the service's error code (`InvalidVpcEndpointId.NotFound`).
 * The message is the Go SDK's API error text, `api error <Code>: <Message>`, the part of Hive's
 * messages that its tests and ErrorScrub keep, so conditions read as Hive's. The action
 * (`ec2:DescribeVpcEndpoints`) goes into the structured log fields instead (`logFields`).
 */
export class AwsCallError extends HostwardenError {
  readonly awsCode: string;
  readonly action: string;
  constructor(action: string, cause: unknown) {
    const code = awsErrorCode(cause);
    // A plain Error (an answer missing a field) has no AWS code: its text alone.
    const api = code !== '' && code !== 'Error';
    super('PRIVATELINK_AWS_FAILED', api ? `api error ${code}: ${errorMessage(cause)}` : errorMessage(cause), { transient: isRetryable(cause), cause });
    this.awsCode = code;
    this.action = action;
  }
}

/**
 * A reconcile step failed; `reason` is the condition reason Hive uses for it. Hive wraps some steps'
 * errors only in what Reconcile returns (`failed to reconcile the VPC Endpoint: …`) and records the
 * inner text in the conditions: `conditionMessage` is that inner text, `message` what is returned.
 */
export class StepError extends HostwardenError {
  readonly reason: FailureReason;
  readonly conditionMessage: string;
  constructor(reason: FailureReason, message: string, cause?: unknown, returnedPrefix?: string) {
    super('PRIVATELINK_STEP_FAILED', returnedPrefix === undefined ? message : `${returnedPrefix}: ${message}`, { transient: true, cause });
    this.reason = reason;
    this.conditionMessage = message;
  }
}

/** Structured log fields for a failure: the AWS action and code when an AWS call failed. */
export function logFields(err: unknown): Record<string, string> {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e instanceof AwsCallError) return { err: errorMessage(err), awsAction: e.action, awsCode: e.awsCode };
    e = e.cause;
  }
  return { err: errorMessage(err) };
}

/** Hive's errors.Wrap: `<prefix>: <error>`, keeping the error (and its AWS code) as the cause. */
export async function wrapped<T>(prefix: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StepError) throw err;
    throw new WrappedError(`${prefix}: ${errorMessage(err)}`, err);
  }
}

/** The error of `wrapped`; NotFound checks see through it to the AWS code. */
export class WrappedError extends HostwardenError {
  constructor(message: string, cause: unknown) {
    super('PRIVATELINK_AWS_FAILED', message, { transient: cause instanceof HostwardenError ? cause.transient : true, cause });
  }
}

const NOT_FOUND =
  /NotFound|NoSuch|^InvalidVpcEndpointServiceId|^InvalidVpcEndpointId|^VPCAssociationNotFound|^VPCAssociationAuthorizationNotFound|^LoadBalancerNotFound/;

/** AWS says the thing is not there: cleanup counts it as done. */
export function isNotFound(err: unknown): boolean {
  if (err instanceof WrappedError) return isNotFound(err.cause);
  const code = err instanceof AwsCallError ? err.awsCode : awsErrorCode(err);
  return NOT_FOUND.test(code);
}

/**
 * Runs `fn`, turning any failure into a StepError with `reason` (StepErrors pass through);
 * `returnedPrefix` is Hive's wrap of the returned error only (the condition keeps the inner text).
 */
export async function step<T>(reason: FailureReason, fn: () => Promise<T>, returnedPrefix?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StepError) {
      if (returnedPrefix === undefined) throw err;
      throw new StepError(err.reason, err.conditionMessage, err.cause ?? err, returnedPrefix);
    }
    throw new StepError(reason, errorMessage(err), err, returnedPrefix);
  }
}
