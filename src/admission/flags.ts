/**
 * Flags of `hostwarden admission-webhook`. Listed once in EXTRA_FLAGS (src/cli/wiring.ts); it also
 * reads the shared `--listen` (default :9443 for this command) and `--kubeconfig`. The `--tls-*` flags
 * are shared with `hostwarden operator` (its webhooks).
 */
import type { FlagSpec } from '../config/flags.ts';

export const ADMISSION_FLAGS: readonly FlagSpec[] = [
  { name: 'config', kind: 'string', default: '', help: 'admission-webhook: ExternalIPRangerAdmissionConfig file (network.openshift.io/v1; YAML or JSON).' },
  {
    name: 'allowed-cidrs',
    kind: 'list',
    default: [],
    help: 'admission-webhook: CIDRs externalIPs may be in (repeatable; none: any address outside --rejected-cidrs).',
  },
  {
    name: 'rejected-cidrs',
    kind: 'list',
    default: [],
    help: 'admission-webhook: CIDRs externalIPs may not be in; they win over --allowed-cidrs (repeatable).',
  },
  {
    name: 'allow-ingress-ip',
    kind: 'bool',
    default: false,
    help: 'admission-webhook: a LoadBalancer Service may keep its current ingress IP as an externalIP.',
  },
  {
    name: 'openshift-network',
    kind: 'string',
    default: '',
    help: 'admission-webhook: follow the ranges of this config.openshift.io/v1 Network object (usually "cluster").',
  },
  { name: 'openshift-network-interval', kind: 'duration', default: '30s', help: 'admission-webhook: how often the --openshift-network object is read again.' },
  { name: 'tls-cert-file', kind: 'string', default: '', help: 'admission-webhook, operator: PEM serving certificate (re-read when it changes).' },
  { name: 'tls-private-key-file', kind: 'string', default: '', help: 'admission-webhook, operator: PEM private key of --tls-cert-file.' },
  {
    name: 'tls-self-signed',
    kind: 'bool',
    default: false,
    help: 'admission-webhook, operator: serve a self-signed certificate made at start (local use; needs openssl).',
  },
  {
    name: 'subject-access-review-timeout',
    kind: 'duration',
    default: '2s',
    help: 'admission-webhook: time allowed for the override SubjectAccessReview (then the request is denied).',
  },
];

export const DEFAULT_ADMISSION_LISTEN = ':9443';
