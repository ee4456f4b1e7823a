/**
 * The checks STS makes on AssumeRoleWithWebIdentity, with the errors STS documents for them:
 * the token must be a JWT (RS256) from an issuer registered as an OIDC provider in the role's
 * account (InvalidIdentityToken), signed by that provider's key (InvalidIdentityToken), for one of
 * its client ids (InvalidIdentityToken: audience), not expired (ExpiredTokenException), and the
 * role must exist and trust that issuer, audience and subject (AccessDenied).
 */
import { createPublicKey, createSign, createVerify, generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** An IAM OIDC identity provider: its issuer URL, client ids (audiences) and signing key. */
export interface OidcProvider {
  issuer: string;
  audiences: readonly string[];
  publicKey: KeyObject;
  /** The account it is registered in (any account when absent). */
  account?: string;
}

/** A role's trust policy for web identities: the provider, and the aud/sub conditions. */
export interface WebIdentityTrust {
  issuer: string;
  audience?: string;
  /** Exact subject, or a prefix ending with `*` (StringLike). */
  subject?: string;
}

export interface WebIdentityClaims {
  iss?: string;
  sub?: string;
  aud?: string;
  exp?: number;
}

interface StsError {
  status: number;
  code: string;
  message: string;
}

const INVALID =
  'The web identity token that was passed could not be validated by AWS. Get a new identity token from the identity provider and then retry the request.';

function b64json(part: string): unknown {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
}

function parse(token: string): { header: Record<string, unknown>; claims: Record<string, unknown>; signed: string; signature: Buffer } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = b64json(parts[0] ?? '');
    const claims = b64json(parts[1] ?? '');
    if (typeof header !== 'object' || header === null || typeof claims !== 'object' || claims === null) return undefined;
    return {
      header: header as Record<string, unknown>,
      claims: claims as Record<string, unknown>,
      signed: `${parts[0]}.${parts[1]}`,
      signature: Buffer.from(parts[2] ?? '', 'base64url'),
    };
  } catch {
    return undefined;
  }
}

export function checkWebIdentity(
  token: string,
  trust: WebIdentityTrust | undefined,
  roleArn: string,
  providers: ReadonlyMap<string, OidcProvider>,
): { claims?: WebIdentityClaims; error?: StsError } {
  const jwt = parse(token);
  if (jwt === undefined) return { error: { status: 400, code: 'InvalidIdentityToken', message: INVALID } };
  const iss = typeof jwt.claims['iss'] === 'string' ? jwt.claims['iss'] : '';
  const account = roleArn.split(':')[4] ?? '';
  const provider = providers.get(iss);
  if (provider === undefined || (provider.account !== undefined && provider.account !== account))
    return { error: { status: 400, code: 'InvalidIdentityToken', message: `No OpenIDConnect provider found in your account for ${iss}` } };
  const verifier = createVerify('RSA-SHA256');
  verifier.update(jwt.signed);
  if (jwt.header['alg'] !== 'RS256' || !verifier.verify(provider.publicKey, jwt.signature))
    return { error: { status: 400, code: 'InvalidIdentityToken', message: INVALID } };
  const auds = Array.isArray(jwt.claims['aud']) ? jwt.claims['aud'].filter((a): a is string => typeof a === 'string') : [String(jwt.claims['aud'] ?? '')];
  const aud = auds.find((a) => provider.audiences.includes(a));
  if (aud === undefined) return { error: { status: 400, code: 'InvalidIdentityToken', message: 'Incorrect token audience' } };
  const sub = typeof jwt.claims['sub'] === 'string' ? jwt.claims['sub'] : undefined;
  const exp = typeof jwt.claims['exp'] === 'number' ? jwt.claims['exp'] : undefined;
  const claims: WebIdentityClaims = { iss, aud, ...(sub === undefined ? {} : { sub }), ...(exp === undefined ? {} : { exp }) };
  if (exp === undefined || exp * 1000 <= Date.now()) {
    const when = exp === undefined ? 'missing' : new Date(exp * 1000).toISOString();
    return {
      claims,
      error: {
        status: 400,
        code: 'ExpiredTokenException',
        message: `Token expired: current date/time ${new Date().toISOString()} must be before the expiration date/time ${when}`,
      },
    };
  }
  const subjectOk = (want: string | undefined): boolean =>
    want === undefined || (want.endsWith('*') ? (sub ?? '').startsWith(want.slice(0, -1)) : sub === want);
  if (trust === undefined || trust.issuer !== iss || (trust.audience !== undefined && trust.audience !== aud) || !subjectOk(trust.subject))
    return { claims, error: { status: 403, code: 'AccessDenied', message: 'Not authorized to perform sts:AssumeRoleWithWebIdentity' } };
  return { claims };
}

/** A token issuer for tests: an RSA key, its provider registration, and signed tokens. */
export class TestTokenIssuer {
  readonly issuer: string;
  private readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;

  constructor(issuer: string) {
    this.issuer = issuer;
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.publicKey = createPublicKey(pair.publicKey.export({ type: 'spki', format: 'pem' }));
  }

  provider(audiences: readonly string[], account?: string): OidcProvider {
    return { issuer: this.issuer, audiences, publicKey: this.publicKey, ...(account === undefined ? {} : { account }) };
  }

  /** A signed RS256 JWT; `expiresInS` negative makes an expired one. */
  token(claims: { sub: string; aud: string | string[]; expiresInS?: number; iss?: string }): string {
    const now = Math.floor(Date.now() / 1000);
    const body = { iss: claims.iss ?? this.issuer, sub: claims.sub, aud: claims.aud, iat: now, exp: now + (claims.expiresInS ?? 3600) };
    const head = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'test' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    const signer = createSign('RSA-SHA256');
    signer.update(`${head}.${payload}`);
    return `${head}.${payload}.${signer.sign(this.privateKey).toString('base64url')}`;
  }
}
