/**
 * Azure settings from the external-dns `azure.json` file and the --azure-* flags (flags win), and
 * the credential they select: a client secret, a managed identity (system or user assigned),
 * workload identity, or else the SDK's default chain.
 */
import { readFile } from 'node:fs/promises';
import { ClientSecretCredential, DefaultAzureCredential, ManagedIdentityCredential, WorkloadIdentityCredential } from '@azure/identity';
import type { TokenCredential } from '@azure/identity';
import type { FlagValues } from '../../config/config.ts';
import { ConfigError, errorMessage } from '../../errors.ts';
import type { AzureHttpOptions } from './client.ts';
import { DEFAULT_CONFIG_FILE } from './flags.ts';
import { redactUrl } from '../../redact.ts';

/** The fields of azure.json that Hostwarden reads (external-dns's names). */
export interface AzureConfigFile {
  cloud?: string;
  tenantId?: string;
  subscriptionId?: string;
  resourceGroup?: string;
  aadClientId?: string;
  aadClientSecret?: string;
  useManagedIdentityExtension?: boolean;
  useWorkloadIdentityExtension?: boolean;
  userAssignedIdentityID?: string;
  activeDirectoryAuthorityHost?: string;
  resourceManagerEndpoint?: string;
}

export type AzureAuth =
  | { kind: 'secret'; tenantId: string; clientId: string; secret: string }
  | { kind: 'managed-identity'; clientId: string }
  | { kind: 'workload-identity'; tenantId: string; clientId: string }
  | { kind: 'default' };

export interface AzureSettings {
  subscriptionId: string;
  resourceGroup: string;
  /** Azure Resource Manager base URL. */
  endpoint: string;
  authorityHost: string;
  auth: AzureAuth;
}

const CLOUDS: Readonly<Record<string, { endpoint: string; authorityHost: string }>> = {
  azurepubliccloud: { endpoint: 'https://management.azure.com', authorityHost: 'https://login.microsoftonline.com' },
  azurechinacloud: { endpoint: 'https://management.chinacloudapi.cn', authorityHost: 'https://login.chinacloudapi.cn' },
  azureusgovernmentcloud: { endpoint: 'https://management.usgovcloudapi.net', authorityHost: 'https://login.microsoftonline.us' },
};

const FLAG_FILE = '--azure-config-file';
const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  'cloud',
  'tenantId',
  'subscriptionId',
  'resourceGroup',
  'aadClientId',
  'aadClientSecret',
  'useManagedIdentityExtension',
  'useWorkloadIdentityExtension',
  'userAssignedIdentityID',
  'activeDirectoryAuthorityHost',
  'resourceManagerEndpoint',
]);

async function readConfigFile(path: string, explicit: boolean): Promise<AzureConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    // The default path is optional: managed identities and the default chain need no file.
    if (!explicit && (err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`${FLAG_FILE}: cannot read ${path}: ${errorMessage(err)}`, FLAG_FILE);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${FLAG_FILE}: ${path} is not JSON: ${errorMessage(err)}`, FLAG_FILE);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError(`${FLAG_FILE}: ${path} is not a JSON object`, FLAG_FILE);
  const file = parsed as Record<string, unknown>;
  for (const [key, value] of Object.entries(file)) {
    if (value === undefined || value === null) continue;
    const want = key === 'useManagedIdentityExtension' || key === 'useWorkloadIdentityExtension' ? 'boolean' : 'string';
    if (KNOWN_FIELDS.has(key) && typeof value !== want) throw new ConfigError(`${FLAG_FILE}: ${path}: ${key} must be a ${want}`, FLAG_FILE);
  }
  return file as AzureConfigFile;
}

/** Merges azure.json and the flags; every missing or contradictory value is a ConfigError naming its flag. */
export async function readAzureSettings(flags: FlagValues): Promise<AzureSettings> {
  const path = flags.str('azure-config-file');
  const explicit = path !== '' && path !== DEFAULT_CONFIG_FILE;
  const file = await readConfigFile(path === '' ? DEFAULT_CONFIG_FILE : path, explicit);
  const subscriptionId = flags.str('azure-subscription-id') || (file.subscriptionId ?? '');
  if (subscriptionId === '')
    throw new ConfigError('an Azure subscription is needed: --azure-subscription-id or subscriptionId in --azure-config-file', '--azure-subscription-id');
  const resourceGroup = flags.str('azure-resource-group') || (file.resourceGroup ?? '');
  const cloudName = (file.cloud ?? '').replace(/[\s_-]/g, '').toLowerCase() || 'azurepubliccloud';
  const cloud = CLOUDS[cloudName];
  if (cloud === undefined)
    throw new ConfigError(`${FLAG_FILE}: unknown cloud ${JSON.stringify(file.cloud)} (AzurePublicCloud, AzureChinaCloud, AzureUSGovernmentCloud)`, FLAG_FILE);
  const endpoint = flags.str('azure-endpoint') || file.resourceManagerEndpoint || cloud.endpoint;
  if (!/^https:\/\//.test(endpoint))
    throw new ConfigError(`the Azure Resource Manager endpoint ${JSON.stringify(redactUrl(endpoint))} must be an https:// URL`, '--azure-endpoint');
  const authorityHost = file.activeDirectoryAuthorityHost || cloud.authorityHost;
  const tenantId = file.tenantId ?? '';
  const clientId = file.aadClientId ?? '';
  let auth: AzureAuth;
  if (file.useWorkloadIdentityExtension === true) {
    auth = { kind: 'workload-identity', tenantId, clientId };
  } else if (file.useManagedIdentityExtension === true) {
    // --azure-user-assigned-identity-client-id overrides the file's userAssignedIdentityID, as in external-dns.
    auth = { kind: 'managed-identity', clientId: flags.str('azure-user-assigned-identity-client-id') || (file.userAssignedIdentityID ?? '') };
  } else if (clientId !== '' || (file.aadClientSecret ?? '') !== '') {
    if (clientId === '' || (file.aadClientSecret ?? '') === '' || tenantId === '') {
      throw new ConfigError(`${FLAG_FILE}: a client secret login needs tenantId, aadClientId and aadClientSecret`, FLAG_FILE);
    }
    auth = { kind: 'secret', tenantId, clientId, secret: file.aadClientSecret as string };
  } else {
    auth = { kind: 'default' };
  }
  return { subscriptionId, resourceGroup, endpoint: endpoint.replace(/\/+$/, ''), authorityHost, auth };
}

export function credentialOf(settings: AzureSettings, http: AzureHttpOptions = {}): TokenCredential {
  const common = { ...http, authorityHost: settings.authorityHost };
  switch (settings.auth.kind) {
    case 'secret':
      // A custom authority (Azure Stack, tests) cannot be checked against Microsoft's instance list.
      return new ClientSecretCredential(settings.auth.tenantId, settings.auth.clientId, settings.auth.secret, {
        ...common,
        disableInstanceDiscovery: !Object.values(CLOUDS).some((c) => c.authorityHost === settings.authorityHost),
      });
    case 'managed-identity':
      return settings.auth.clientId === '' ? new ManagedIdentityCredential(http) : new ManagedIdentityCredential({ ...http, clientId: settings.auth.clientId });
    case 'workload-identity':
      return new WorkloadIdentityCredential({
        ...common,
        ...(settings.auth.tenantId === '' ? {} : { tenantId: settings.auth.tenantId }),
        ...(settings.auth.clientId === '' ? {} : { clientId: settings.auth.clientId }),
      });
    case 'default':
      return new DefaultAzureCredential(common);
  }
}
