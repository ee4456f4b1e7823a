/**
 * Flags of `hostwarden operator`, and the one flag the operator hands its operands
 * (`--status-externaldns`, read by `hostwarden run`). Listed once in EXTRA_FLAGS (src/cli/wiring.ts).
 * The operator also reads the shared --kubeconfig, --leader-elect, --leader-election-*,
 * --metrics-address and --tls-* flags.
 */
import type { FlagSpec } from '../config/flags.ts';

export const DEFAULT_OPERAND_IMAGE = 'ghcr.io/hostwarden/hostwarden:latest';

export const OPERATOR_FLAGS: readonly FlagSpec[] = [
  {
    name: 'operator-namespace',
    kind: 'string',
    default: 'hostwarden-operator',
    help: 'operator: namespace of the credentials Secrets named by ExternalDNS objects (and of the leader Lease).',
  },
  { name: 'operand-namespace', kind: 'string', default: 'hostwarden', help: 'operator: namespace of the operand Deployments it creates.' },
  { name: 'operand-image', kind: 'string', default: DEFAULT_OPERAND_IMAGE, help: 'operator: Hostwarden image the operand Deployments run.' },
  {
    name: 'webhook-listen',
    kind: 'string',
    default: ':9443',
    help: 'operator: HTTPS address of the validating and conversion webhooks (/validate, /convert, /healthz; "" disables them).',
  },
  {
    name: 'trusted-ca-configmap',
    kind: 'string',
    default: '',
    help: "operator: ConfigMap (key ca-bundle.crt) in the operand namespace mounted as the operands' extra trusted CAs.",
  },
  {
    name: 'status-externaldns',
    kind: 'string',
    default: '',
    help: 'run: report ProviderAuthorized on the status of this ExternalDNS object (set by the operator on its operands).',
  },
];
