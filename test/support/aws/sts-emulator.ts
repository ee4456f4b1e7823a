/**
 * STS on the query API: AssumeRole (checking that the role exists, that the caller may assume it
 * and that the ExternalId matches the role's trust policy), AssumeRoleWithWebIdentity (unsigned;
 * see sts-web-identity.ts for the token checks) and GetCallerIdentity.
 */
import { randomBytes } from 'node:crypto';
import type { AwsEmulator, EmulatedRequest, EmulatedResponse, ServiceHandler } from './emulator.ts';
import { el } from './xml.ts';
import { checkWebIdentity } from './sts-web-identity.ts';
import type { OidcProvider, WebIdentityTrust } from './sts-web-identity.ts';

const NS = 'https://sts.amazonaws.com/doc/2011-06-15/';

export interface RoleDefinition {
  arn: string;
  /** The ExternalId the trust policy requires (sts:ExternalId condition). */
  externalId?: string;
  /** Principals allowed to assume it (all known callers when absent). */
  trusted?: readonly string[];
  /** Who may assume it with AssumeRoleWithWebIdentity (nobody when absent). */
  webIdentity?: WebIdentityTrust;
}

export class StsEmulator implements ServiceHandler {
  readonly service = 'sts';
  readonly roles = new Map<string, RoleDefinition>();
  /** Successful and refused AssumeRole calls, for assertions. */
  readonly assumeRoleCalls: { roleArn: string; externalId: string | undefined; ok: boolean; caller: string; sessionName: string }[] = [];
  /** AssumeRoleWithWebIdentity calls: the role, the token's subject, and the error code when refused. */
  readonly webIdentityCalls: { roleArn: string; subject: string | undefined; error: string | undefined }[] = [];
  /** OIDC identity providers registered (IAM CreateOpenIDConnectProvider), by issuer URL. */
  readonly oidcProviders = new Map<string, OidcProvider>();
  private readonly aws: AwsEmulator;

  constructor(aws: AwsEmulator) {
    this.aws = aws;
    aws.register(this);
  }

  addRole(role: RoleDefinition): void {
    this.roles.set(role.arn, role);
  }

  addOidcProvider(provider: OidcProvider): void {
    this.oidcProviders.set(provider.issuer, provider);
  }

  anonymous(req: EmulatedRequest): boolean {
    return (new URLSearchParams(req.body).get('Action') ?? req.query.get('Action')) === 'AssumeRoleWithWebIdentity';
  }

  operation(req: EmulatedRequest): string {
    const action = new URLSearchParams(req.body).get('Action') ?? req.query.get('Action');
    if (action === null) throw new Error('missing Action');
    return action;
  }

  handle(req: EmulatedRequest, op: string): EmulatedResponse {
    const form = new URLSearchParams(req.body);
    switch (op) {
      case 'AssumeRole':
        return this.assumeRole(req, form);
      case 'AssumeRoleWithWebIdentity':
        return this.assumeRoleWithWebIdentity(form);
      case 'GetCallerIdentity': {
        const id = this.aws.identities.get(req.accessKeyId);
        return ok(op, [el('Arn', req.principal), el('UserId', req.accessKeyId), el('Account', id?.account ?? '')]);
      }
      default:
        return this.error(400, 'InvalidAction', `Could not find operation ${op} for version 2011-06-15`);
    }
  }

  error(status: number, code: string, message: string): EmulatedResponse {
    return {
      status,
      body: `<?xml version="1.0" encoding="UTF-8"?><ErrorResponse xmlns="${NS}">${el('Error', [el('Type', status >= 500 ? 'Receiver' : 'Sender'), el('Code', code), el('Message', message)])}${el('RequestId', randomBytes(8).toString('hex'))}</ErrorResponse>`,
    };
  }

  private assumeRoleWithWebIdentity(form: URLSearchParams): EmulatedResponse {
    const roleArn = form.get('RoleArn') ?? '';
    const sessionName = form.get('RoleSessionName') ?? '';
    const token = form.get('WebIdentityToken') ?? '';
    const missing = [
      ['roleArn', roleArn],
      ['roleSessionName', sessionName],
      ['webIdentityToken', token],
    ].find(([, v]) => v === '');
    if (missing !== undefined)
      return this.error(
        400,
        'ValidationError',
        `1 validation error detected: Value null at '${missing[0] ?? ''}' failed to satisfy constraint: Member must not be null`,
      );
    if (!/^[\w+=,.@-]{2,64}$/.test(sessionName))
      return this.error(
        400,
        'ValidationError',
        `1 validation error detected: Value '${sessionName}' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*`,
      );
    const verdict = checkWebIdentity(token, this.roles.get(roleArn)?.webIdentity, roleArn, this.oidcProviders);
    this.webIdentityCalls.push({ roleArn, subject: verdict.claims?.sub, error: verdict.error?.code });
    if (verdict.error !== undefined) return this.error(verdict.error.status, verdict.error.code, verdict.error.message);
    const claims = verdict.claims ?? {};
    const session = this.aws.issueSession(roleArn, sessionName);
    return ok('AssumeRoleWithWebIdentity', [
      el('Credentials', [
        el('AccessKeyId', session.accessKeyId),
        el('SecretAccessKey', session.secretAccessKey),
        el('SessionToken', session.sessionToken),
        el('Expiration', new Date(Date.now() + 3600_000).toISOString()),
      ]),
      el('SubjectFromWebIdentityToken', claims.sub ?? ''),
      el('AssumedRoleUser', [el('Arn', session.arn), el('AssumedRoleId', `AROA${randomBytes(6).toString('hex').toUpperCase()}:${sessionName}`)]),
      el('Provider', (claims.iss ?? '').replace(/^https:\/\//, '')),
      el('Audience', claims.aud ?? ''),
    ]);
  }

  private assumeRole(req: EmulatedRequest, form: URLSearchParams): EmulatedResponse {
    const roleArn = form.get('RoleArn') ?? '';
    const sessionName = form.get('RoleSessionName') ?? '';
    const externalId = form.get('ExternalId') ?? undefined;
    if (roleArn === '' || sessionName === '') return this.error(400, 'ValidationError', 'RoleArn and RoleSessionName are required');
    const role = this.roles.get(roleArn);
    const trusted = role !== undefined && (role.trusted === undefined || role.trusted.includes(req.principal));
    const idOk = role !== undefined && role.externalId === externalId;
    this.assumeRoleCalls.push({ roleArn, externalId, ok: trusted && idOk, caller: req.principal, sessionName });
    if (!trusted || !idOk) {
      return this.error(403, 'AccessDenied', `User: ${req.principal} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`);
    }
    const session = this.aws.issueSession(roleArn, sessionName);
    const expiration = new Date(Date.now() + 3600_000).toISOString();
    return ok('AssumeRole', [
      el('Credentials', [
        el('AccessKeyId', session.accessKeyId),
        el('SecretAccessKey', session.secretAccessKey),
        el('SessionToken', session.sessionToken),
        el('Expiration', expiration),
      ]),
      el('AssumedRoleUser', [el('Arn', session.arn), el('AssumedRoleId', `AROA${randomBytes(6).toString('hex').toUpperCase()}:${sessionName}`)]),
    ]);
  }
}

function ok(op: string, result: string[]): EmulatedResponse {
  return {
    status: 200,
    body: `<?xml version="1.0" encoding="UTF-8"?><${op}Response xmlns="${NS}">${el(`${op}Result`, result)}${el('ResponseMetadata', [el('RequestId', randomBytes(8).toString('hex'))])}</${op}Response>`,
  };
}
