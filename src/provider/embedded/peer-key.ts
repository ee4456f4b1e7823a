/**
 * The TSIG key the replicas of an embedded-provider set sign their zone transfers with: the leader
 * answers transfers signed with it, so the followers need no --dns-allow-transfer entry and the
 * zones are not open to whoever can reach the DNS port. Kept in a Secret beside the Lease; the
 * first replica to start creates it with a random secret, the others read it.
 */
import { randomBytes } from 'node:crypto';
import { HostwardenError, errorMessage } from '../../errors.ts';
import type { KubeClient } from '../../kube/client.ts';
import { isStatus } from '../../kube/errors.ts';
import { SECRETS, collectionPath, objectPath } from '../../kube/resource.ts';
import type { TsigKey } from '../../dns/tsig.ts';

export const DEFAULT_PEER_SECRET = 'hostwarden-embedded-peer';
/** The key's TSIG name; the Secret's name says which set it belongs to. */
export const PEER_KEY_NAME = 'hostwarden-peer';
const SECRET_BYTES = 32;

interface Secret {
  metadata: { name: string };
  data?: Record<string, string>;
}

export interface PeerKeyOptions {
  client: Pick<KubeClient, 'request'>;
  namespace: string;
  name: string;
  /** Random bytes for a new key (tests). */
  random?: (n: number) => Buffer;
}

/** Reads the set's transfer key, creating the Secret when no replica has yet. The message never holds the secret. */
export async function loadOrCreatePeerKey(opts: PeerKeyOptions): Promise<TsigKey> {
  const where = `secret ${opts.namespace}/${opts.name}`;
  const read = async (): Promise<TsigKey | undefined> => {
    try {
      const secret = await opts.client.request<Secret>('GET', objectPath(SECRETS, opts.namespace, opts.name));
      return keyOf(secret, where);
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw failure(where, 'get', err);
    }
  };
  const existing = await read();
  if (existing !== undefined) return existing;
  const secret = (opts.random ?? randomBytes)(SECRET_BYTES);
  const body = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: opts.name,
      namespace: opts.namespace,
      labels: { 'app.kubernetes.io/name': 'hostwarden', 'app.kubernetes.io/component': 'embedded-peer-key' },
    },
    data: { algorithm: Buffer.from('hmac-sha256').toString('base64'), secret: secret.toString('base64') },
  };
  try {
    await opts.client.request('POST', collectionPath(SECRETS, opts.namespace), { body });
    return { name: PEER_KEY_NAME, algorithm: 'hmac-sha256', secret };
  } catch (err) {
    if (!isStatus(err, 409)) throw failure(where, 'create', err);
  }
  // Another replica created it first: use that one.
  const created = await read();
  if (created === undefined)
    throw new HostwardenError('EMBEDDED_PEER_KEY', `${where} was created by another replica and then disappeared`, { transient: true });
  return created;
}

function keyOf(secret: Secret, where: string): TsigKey {
  const raw = secret.data?.['secret'];
  const value = raw === undefined ? undefined : Buffer.from(raw, 'base64');
  if (value === undefined || value.length < 16)
    throw new HostwardenError('EMBEDDED_PEER_KEY', `${where}: data.secret must hold at least 16 bytes (base64); delete the Secret to have a new one made`);
  const algorithm = secret.data?.['algorithm'] === undefined ? 'hmac-sha256' : Buffer.from(secret.data['algorithm'], 'base64').toString('utf8');
  if (algorithm !== 'hmac-sha256' && algorithm !== 'hmac-sha512')
    throw new HostwardenError('EMBEDDED_PEER_KEY', `${where}: data.algorithm must be hmac-sha256 or hmac-sha512`);
  return { name: PEER_KEY_NAME, algorithm, secret: value };
}

function failure(where: string, verb: string, err: unknown): HostwardenError {
  const forbidden = isStatus(err, 403);
  const hint = forbidden
    ? ` (grant ${verb} on secrets in this namespace, or set --embedded-peer-secret "" and admit the replicas with --dns-allow-transfer)`
    : '';
  return new HostwardenError('EMBEDDED_PEER_KEY', `cannot ${verb} ${where}: ${errorMessage(err)}${hint}`, { transient: !forbidden, cause: err });
}
