/** Flags of the azure and azure-private-dns providers, with external-dns's names (plus an endpoint override). */
import type { FlagSpec } from '../../config/flags.ts';

/** external-dns's default; declared here, not in settings.ts, so the flag table does not load the Azure SDK. */
export const DEFAULT_CONFIG_FILE = '/etc/kubernetes/azure.json';

export const AZURE_FLAGS: readonly FlagSpec[] = [
  {
    name: 'azure-config-file',
    kind: 'string',
    default: DEFAULT_CONFIG_FILE,
    help: 'azure: external-dns azure.json (tenantId, subscriptionId, resourceGroup, aadClientId/aadClientSecret or useManagedIdentityExtension/userAssignedIdentityID).',
  },
  {
    name: 'azure-resource-group',
    kind: 'string',
    default: '',
    help: 'azure: resource group of the zones (overrides the config file; empty: every zone of the subscription).',
  },
  { name: 'azure-subscription-id', kind: 'string', default: '', help: 'azure: subscription of the zones (overrides the config file).' },
  {
    name: 'azure-user-assigned-identity-client-id',
    kind: 'string',
    default: '',
    help: 'azure: client id of the user-assigned managed identity (overrides userAssignedIdentityID of the config file).',
  },
  { name: 'azure-zones-cache-duration', kind: 'duration', default: '0s', help: 'azure: keep the zone list this long between syncs (0 lists on every sync).' },
  { name: 'azure-maxretries-count', kind: 'int', default: '3', help: 'azure: retries of a throttled or failed API call inside the SDK.' },
  {
    name: 'azure-endpoint',
    kind: 'string',
    default: '',
    help: 'azure: Azure Resource Manager URL (overrides the cloud of the config file; for private clouds and tests).',
  },
];
