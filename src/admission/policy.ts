/**
 * The external-IP policy and the three places it can come from: the upstream
 * `ExternalIPRangerAdmissionConfig` file, the flags, or a cluster's `config.openshift.io/v1`
 * Network object. Every parser names the entry it could not read, so a typo in one CIDR never
 * silently widens or narrows what is admitted.
 */
import { parse as parseYaml } from 'yaml';
import { ConfigError, HostwardenError, errorMessage } from '../errors.ts';
import { parseCidr } from './ip.ts';
import type { CidrRange } from './ip.ts';

export interface ExternalIPPolicy {
  /** Ranges an externalIP may be in; empty with `reject` empty disables externalIPs. */
  admit: readonly CidrRange[];
  /** Ranges no externalIP may be in; they win over `admit`. */
  reject: readonly CidrRange[];
  /** On UPDATE of a LoadBalancer Service, its current ingress IP is always accepted. */
  allowIngressIP: boolean;
  /** Where the policy came from, for logs and messages. */
  origin: string;
}

/** A policy entry (file, flag or Network field) that is not a CIDR. */
export class PolicyError extends HostwardenError {
  constructor(message: string) {
    super('ADMISSION_POLICY_INVALID', message);
  }
}

export function emptyPolicy(origin: string): ExternalIPPolicy {
  return { admit: [], reject: [], allowIngressIP: false, origin };
}

export function isDisabled(policy: ExternalIPPolicy): boolean {
  return policy.admit.length === 0 && policy.reject.length === 0;
}

function cidrOrThrow(text: string, where: string): CidrRange {
  const range = parseCidr(text.trim());
  if (range === undefined) throw new PolicyError(`${where}: ${JSON.stringify(text)} is not a CIDR (address/prefix)`);
  return range;
}

/**
 * `externalIPNetworkCIDRs` as OpenShift writes it: `!10.1.0.0/16` rejects, `10.0.0.0/8` admits.
 */
export function policyFromNetworkCIDRs(entries: readonly string[], allowIngressIP: boolean, origin: string): ExternalIPPolicy {
  const admit: CidrRange[] = [];
  const reject: CidrRange[] = [];
  entries.forEach((entry, i) => {
    const where = `${origin}: externalIPNetworkCIDRs[${i}]`;
    if (entry.startsWith('!')) reject.push(cidrOrThrow(entry.slice(1), where));
    else admit.push(cidrOrThrow(entry, where));
  });
  return { admit, reject, allowIngressIP, origin };
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function stringList(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new PolicyError(`${where} must be a list of strings`);
  return v.map((item, i) => {
    if (typeof item !== 'string') throw new PolicyError(`${where}[${i}] must be a string`);
    return item;
  });
}

/** Parses the text of an `ExternalIPRangerAdmissionConfig` (YAML or JSON). */
export function parsePolicyFile(text: string, path: string): ExternalIPPolicy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new PolicyError(`${path}: not YAML or JSON: ${errorMessage(err)}`);
  }
  const obj = asRecord(doc);
  if (obj === undefined) throw new PolicyError(`${path}: expected an ExternalIPRangerAdmissionConfig object`);
  const kind = obj['kind'];
  if (kind !== undefined && kind !== 'ExternalIPRangerAdmissionConfig') {
    throw new PolicyError(`${path}: kind is ${JSON.stringify(kind)}, expected ExternalIPRangerAdmissionConfig`);
  }
  const apiVersion = obj['apiVersion'];
  if (apiVersion !== undefined && apiVersion !== 'network.openshift.io/v1' && apiVersion !== 'v1') {
    throw new PolicyError(`${path}: apiVersion is ${JSON.stringify(apiVersion)}, expected network.openshift.io/v1`);
  }
  const allow = obj['allowIngressIP'] ?? false;
  if (typeof allow !== 'boolean') throw new PolicyError(`${path}: allowIngressIP must be true or false`);
  return policyFromNetworkCIDRs(stringList(obj['externalIPNetworkCIDRs'], `${path}: externalIPNetworkCIDRs`), allow, path);
}

export interface PolicyFlags {
  allowedCidrs: readonly string[];
  rejectedCidrs: readonly string[];
  allowIngressIP: boolean;
}

/** From `--allowed-cidrs`, `--rejected-cidrs`, `--allow-ingress-ip`; errors name the flag and entry. */
export function policyFromFlags(flags: PolicyFlags): ExternalIPPolicy {
  const read = (list: readonly string[], flag: string): CidrRange[] =>
    list.map((entry) => {
      const range = parseCidr(entry.trim());
      if (range === undefined) throw new ConfigError(`${flag}: ${JSON.stringify(entry)} is not a CIDR (address/prefix)`, flag);
      return range;
    });
  return {
    admit: read(flags.allowedCidrs, '--allowed-cidrs'),
    reject: read(flags.rejectedCidrs, '--rejected-cidrs'),
    allowIngressIP: flags.allowIngressIP,
    origin: 'flags',
  };
}

/**
 * From a `config.openshift.io/v1` Network object's `spec.externalIP`, the way OpenShift's network
 * operator renders it for the admission plugin: rejected ranges first, then allowed ones, and the
 * ingress-IP exemption when addresses are auto-assigned (autoAssignCIDRs set).
 */
export function policyFromNetworkObject(obj: unknown, origin: string): ExternalIPPolicy {
  const spec = asRecord(asRecord(obj)?.['spec']);
  const ext = asRecord(spec?.['externalIP']);
  if (ext === undefined) return emptyPolicy(origin);
  const policy = asRecord(ext['policy']);
  const rejected = stringList(policy?.['rejectedCIDRs'], `${origin}: spec.externalIP.policy.rejectedCIDRs`);
  const allowed = stringList(policy?.['allowedCIDRs'], `${origin}: spec.externalIP.policy.allowedCIDRs`);
  const autoAssign = stringList(ext['autoAssignCIDRs'], `${origin}: spec.externalIP.autoAssignCIDRs`);
  const reject = rejected.map((c, i) => cidrOrThrow(c, `${origin}: spec.externalIP.policy.rejectedCIDRs[${i}]`));
  const admit = allowed.map((c, i) => cidrOrThrow(c, `${origin}: spec.externalIP.policy.allowedCIDRs[${i}]`));
  autoAssign.forEach((c, i) => cidrOrThrow(c, `${origin}: spec.externalIP.autoAssignCIDRs[${i}]`));
  return { admit, reject, allowIngressIP: autoAssign.length > 0, origin };
}

/** One line for logs: "admit 10.0.0.0/8; reject 10.1.0.0/16; ingress IP exempt". */
export function describePolicy(policy: ExternalIPPolicy): string {
  if (isDisabled(policy)) return `externalIPs disabled (no ranges configured)${policy.allowIngressIP ? '; ingress IP exempt' : ''}`;
  const parts = [];
  if (policy.admit.length > 0) parts.push(`admit ${policy.admit.map((r) => r.text).join(', ')}`);
  else parts.push('admit everything outside the rejected ranges');
  if (policy.reject.length > 0) parts.push(`reject ${policy.reject.map((r) => r.text).join(', ')}`);
  if (policy.allowIngressIP) parts.push('ingress IP exempt');
  return parts.join('; ');
}
