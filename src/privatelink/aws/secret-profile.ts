/**
 * A credentials Secret read as Hive reads it (pkg/awsclient awsCLIConfigFromSecret): an
 * `aws_config` key is an AWS config file used with profile `default` (Hostwarden also takes the
 * same file under `config`); otherwise every data key becomes `key = value` of a `[default]`
 * profile. `credential_process` anywhere is refused with Hive's words. The file is parsed here in
 * memory, not written to a temp file for the SDK's loader, so the secret never touches the disk.
 *
 * What a profile may say: static keys (with a session token), or `role_arn` with `source_profile`
 * (chained, each hop with its own `external_id` / `role_session_name`). `region` is ignored: the
 * cluster's region decides. Anything that would reach outside the Secret (`credential_source`,
 * `web_identity_token_file`, SSO) is refused, so a Secret can never borrow the controller's identity.
 */
import { HostwardenError } from '../../errors.ts';

/** Hive's constants.AWSConfigSecretKey. */
export const AWS_CONFIG_KEY = 'aws_config';
/** The other name of the same file Hostwarden accepts (the name the AWS CLI gives it). */
export const CONFIG_KEY = 'config';
export const CREDENTIAL_PROCESS_FORBIDDEN = 'credential_process is insecure and thus forbidden';

/** A Secret that cannot give credentials; the message names keys and profiles, never values. */
export class SecretCredentialsError extends HostwardenError {
  constructor(message: string) {
    super('PRIVATELINK_BAD_CREDENTIALS', message, { transient: false });
  }
}

export interface StaticKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface RoleHop {
  roleArn: string;
  externalId?: string;
  sessionName?: string;
}

/** Static keys, then the roles to assume one after the other with them (innermost first). */
export interface ResolvedProfile {
  keys: StaticKeys;
  roles: RoleHop[];
}

const CREDENTIAL_PROCESS = /\bcredential_process\b/i;
const OUTSIDE_KEYS = ['credential_source', 'web_identity_token_file', 'sso_start_url', 'sso_session', 'sso_account_id', 'sso_role_name'];

/** The AWS config file a Secret stands for, as Hive builds it. */
export function awsConfigFromSecret(data: Readonly<Record<string, string>>): string {
  const file = data[AWS_CONFIG_KEY] ?? data[CONFIG_KEY];
  if (file !== undefined) {
    if (CREDENTIAL_PROCESS.test(file)) throw new SecretCredentialsError(CREDENTIAL_PROCESS_FORBIDDEN);
    return file;
  }
  const lines = ['[default]'];
  for (const [k, v] of Object.entries(data)) {
    if (k.toLowerCase() === 'credential_process') throw new SecretCredentialsError(CREDENTIAL_PROCESS_FORBIDDEN);
    lines.push(`${k} = ${v}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Profiles of a config file by name: `[default]`, `[profile name]` (and `[name]`, as a credentials
 * file writes it). Keys are lower-cased; `#` / `;` lines are comments; indented lines (sub-sections
 * such as `s3 =`) are skipped.
 */
export function parseAwsConfig(text: string): Map<string, Record<string, string>> {
  const profiles = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s/.test(raw)) continue;
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (section !== null) {
      const name = (section[1] ?? '').replace(/^profile\s+/, '');
      current = profiles.get(name) ?? {};
      profiles.set(name, current);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0 || current === undefined) continue;
    current[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  }
  return profiles;
}

/** The credentials profile `name` leads to, following source_profile links. */
export function resolveProfile(profiles: Map<string, Record<string, string>>, name = 'default'): ResolvedProfile {
  const roles: RoleHop[] = [];
  const seen = new Set<string>();
  let at = name;
  for (;;) {
    const p = profiles.get(at);
    if (p === undefined) throw new SecretCredentialsError(`the AWS config has no profile ${JSON.stringify(at)}`);
    const outside = OUTSIDE_KEYS.find((k) => p[k] !== undefined);
    if (outside !== undefined) throw new SecretCredentialsError(`profile ${JSON.stringify(at)}: ${outside} is not supported in a credentials Secret`);
    const role = p['role_arn'];
    // A profile that names itself as source uses its own keys for the role (as the AWS SDKs do).
    if (role !== undefined && role !== '' && !seen.has(at)) {
      const source = p['source_profile'];
      if (source === undefined || source === '') throw new SecretCredentialsError(`profile ${JSON.stringify(at)}: role_arn needs source_profile`);
      roles.unshift({
        roleArn: role,
        ...(p['external_id'] ? { externalId: p['external_id'] } : {}),
        ...(p['role_session_name'] ? { sessionName: p['role_session_name'] } : {}),
      });
      seen.add(at);
      if (source !== at && seen.has(source)) throw new SecretCredentialsError(`profile ${JSON.stringify(at)}: source_profile loop`);
      at = source;
      continue;
    }
    const id = p['aws_access_key_id'];
    const secret = p['aws_secret_access_key'];
    if (id === undefined || id === '' || secret === undefined || secret === '') {
      throw new SecretCredentialsError(`profile ${JSON.stringify(at)} has no aws_access_key_id and aws_secret_access_key`);
    }
    const token = p['aws_session_token'];
    return { keys: { accessKeyId: id, secretAccessKey: secret, ...(token ? { sessionToken: token } : {}) }, roles };
  }
}

/** A Secret's data to the credentials of its `default` profile. */
export function profileFromSecret(data: Readonly<Record<string, string>>): ResolvedProfile {
  return resolveProfile(parseAwsConfig(awsConfigFromSecret(data)));
}
