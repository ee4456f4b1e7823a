/**
 * Invariants shared by the plain manifests (deploy/) and the rendered Helm chart. Each check
 * returns readable problems instead of asserting, so one failing test lists everything wrong.
 */
import { parseListenAddress, resolveConfig } from '../../src/config/config.ts';
import type { Config } from '../../src/config/config.ts';
import { envName } from '../../src/config/flags.ts';
import { COMMANDS, commandFlags, parseCommandArgs } from '../../src/cli/commands.ts';
import type { Command } from '../../src/cli/commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';

export type Obj = Record<string, unknown>;

/** Exactly the tables `bin/hostwarden` parses with (src/cli/main.ts). */

/** (apiVersion, kind) pairs the manifests may use, and whether the kind lives in a namespace. */
const KNOWN_KINDS: Readonly<Record<string, boolean>> = {
  'v1/Namespace': false,
  'v1/ServiceAccount': true,
  'v1/Service': true,
  'v1/PersistentVolumeClaim': true,
  'apps/v1/Deployment': true,
  'policy/v1/PodDisruptionBudget': true,
  'rbac.authorization.k8s.io/v1/ClusterRole': false,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': false,
  'rbac.authorization.k8s.io/v1/Role': true,
  'rbac.authorization.k8s.io/v1/RoleBinding': true,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': false,
  'monitoring.coreos.com/v1/ServiceMonitor': true,
};

export function get(value: unknown, ...path: (string | number)[]): unknown {
  let v = value;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? (value as Obj[]) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

export function ofKind(objs: readonly Obj[], kind: string): Obj[] {
  return objs.filter((o) => o['kind'] === kind);
}

export function nameOf(o: Obj): string {
  return `${String(o['kind'])}/${String(get(o, 'metadata', 'name'))}`;
}

/** Every object has a known apiVersion/kind, a name, and a namespace exactly when its kind has one. */
export function checkShapes(objs: readonly Obj[], namespace: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const o of objs) {
    const key = `${String(o['apiVersion'])}/${String(o['kind'])}`;
    const namespaced = KNOWN_KINDS[key];
    const name = get(o, 'metadata', 'name');
    if (namespaced === undefined) problems.push(`${key}: unknown apiVersion/kind`);
    if (typeof name !== 'string' || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253) problems.push(`${nameOf(o)}: bad metadata.name`);
    const ns = get(o, 'metadata', 'namespace');
    if (namespaced === true && ns !== namespace) problems.push(`${nameOf(o)}: namespace ${String(ns)}, expected ${namespace}`);
    if (namespaced === false && ns !== undefined) problems.push(`${nameOf(o)}: cluster-scoped but has a namespace`);
    const id = `${key}/${String(ns)}/${String(name)}`;
    if (seen.has(id)) problems.push(`${nameOf(o)}: defined twice`);
    seen.add(id);
  }
  return problems;
}

/** Parses container args exactly as `bin/hostwarden` does (the command's flag table; flags alone are run), so a misspelt flag fails here. */
export function parseContainerArgs(args: readonly string[], env: Readonly<Record<string, string>> = {}): Config {
  const command = (COMMANDS as readonly string[]).includes(args[0] ?? '') ? (args[0] as Command) : undefined;
  const parsed = parseCommandArgs(command ?? 'run', command === undefined ? args : args.slice(1), env);
  if (parsed.positionals.length > 0) throw new Error(`unexpected argument ${parsed.positionals[0] ?? ''}`);
  return resolveConfig(parsed, { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
}

const KNOWN_ENV = new Set(commandFlags('run').map((f) => envName(f.name)));

export interface WorkloadCheck {
  problems: string[];
  config: Config | undefined;
}

/** Security, probes, args, volumes and the Services in front of the one Hostwarden Deployment. */
export function checkWorkload(objs: readonly Obj[]): WorkloadCheck {
  const problems: string[] = [];
  const deployments = ofKind(objs, 'Deployment');
  if (deployments.length !== 1) return { problems: [`expected one Deployment, found ${deployments.length}`], config: undefined };
  const dep = deployments[0] as Obj;
  const pod = get(dep, 'spec', 'template', 'spec');
  const podLabels = (get(dep, 'spec', 'template', 'metadata', 'labels') ?? {}) as Record<string, unknown>;
  const selector = (get(dep, 'spec', 'selector', 'matchLabels') ?? {}) as Record<string, unknown>;
  if (Object.keys(selector).length === 0) problems.push('Deployment: empty selector');
  for (const [k, v] of Object.entries(selector)) if (podLabels[k] !== v) problems.push(`Deployment: selector ${k}=${String(v)} does not match the pod labels`);

  const podSec = get(pod, 'securityContext');
  const containers = list(get(pod, 'containers'));
  if (containers.length !== 1) problems.push(`expected one container, found ${containers.length}`);
  const c = containers[0] ?? {};
  const sec = get(c, 'securityContext');
  const eff = (key: string): unknown => get(sec, key) ?? get(podSec, key);
  if (eff('runAsNonRoot') !== true) problems.push('runAsNonRoot is not true');
  const uid = eff('runAsUser');
  if (typeof uid !== 'number' || uid === 0) problems.push(`runAsUser ${String(uid)} is not a non-root numeric uid`);
  if (get(sec, 'seccompProfile', 'type') !== 'RuntimeDefault' && get(podSec, 'seccompProfile', 'type') !== 'RuntimeDefault')
    problems.push('seccompProfile is not RuntimeDefault');
  if (get(sec, 'readOnlyRootFilesystem') !== true) problems.push('readOnlyRootFilesystem is not true');
  if (get(sec, 'allowPrivilegeEscalation') !== false) problems.push('allowPrivilegeEscalation is not false');
  if (get(sec, 'privileged') === true) problems.push('privileged container');
  if (!strings(get(sec, 'capabilities', 'drop')).includes('ALL')) problems.push('capabilities do not drop ALL');
  if (strings(get(sec, 'capabilities', 'add')).length > 0) problems.push('capabilities are added');
  const image = String(get(c, 'image') ?? '');
  if (!/:[\w.-]+$/.test(image) || image.endsWith(':latest')) problems.push(`image ${image} has no pinned tag`);
  for (const r of [
    ['requests', 'cpu'],
    ['requests', 'memory'],
    ['limits', 'memory'],
  ]) {
    if (get(c, 'resources', ...r) === undefined) problems.push(`resources.${r.join('.')} is not set`);
  }

  // Flags: env from the manifest counts as the process would see it (secrets cannot be checked).
  const env: Record<string, string> = {};
  for (const e of list(get(c, 'env'))) {
    const name = String(e['name']);
    if (name.startsWith('EXTERNAL_DNS_') && !KNOWN_ENV.has(name)) problems.push(`env ${name} sets no known flag`);
    if (typeof e['value'] === 'string') env[name] = e['value'];
  }
  let config: Config | undefined;
  try {
    config = parseContainerArgs(strings(get(c, 'args')), env);
  } catch (err) {
    problems.push(`args: ${(err as Error).message}`);
  }
  if (get(c, 'command') !== undefined) problems.push('command overrides the image ENTRYPOINT');

  const ports = list(get(c, 'ports'));
  const portByName = new Map(ports.map((p) => [String(p['name']), p]));
  const resolvePort = (port: unknown): number | undefined =>
    typeof port === 'number' ? port : (portByName.get(String(port))?.['containerPort'] as number | undefined);
  const metricsPort = config === undefined || config.metricsAddress === '' ? undefined : parseListenAddress(config.metricsAddress, '--metrics-address').port;
  // Liveness on /healthz (the loop works); readiness on /readyz (a sync has succeeded: records are published).
  for (const [probe, path] of [
    ['livenessProbe', '/healthz'],
    ['readinessProbe', '/readyz'],
  ] as const) {
    if (get(c, probe, 'httpGet', 'path') !== path) problems.push(`${probe} is not an HTTP GET of ${path}`);
    const port = resolvePort(get(c, probe, 'httpGet', 'port'));
    if (port === undefined || port !== metricsPort) problems.push(`${probe} port ${String(port)} is not the --metrics-address port ${String(metricsPort)}`);
  }
  if (metricsPort !== undefined && !ports.some((p) => p['containerPort'] === metricsPort))
    problems.push(`container does not declare the metrics port ${metricsPort}`);

  const volumes = new Map(list(get(pod, 'volumes')).map((v) => [String(v['name']), v]));
  const mounts = list(get(c, 'volumeMounts'));
  for (const m of mounts) if (!volumes.has(String(m['name']))) problems.push(`volumeMount ${String(m['name'])} has no volume`);
  const writable = (path: string): boolean =>
    mounts.some((m) => {
      const v = volumes.get(String(m['name']));
      return m['mountPath'] === path && m['readOnly'] !== true && v !== undefined && ('emptyDir' in v || 'persistentVolumeClaim' in v);
    });
  // tsx writes its compile cache to the temp directory; the root filesystem is read-only.
  if (!writable('/tmp')) problems.push('/tmp is not a writable volume');
  if (config?.provider === 'embedded') {
    if (!writable(config.embeddedDataDir)) problems.push(`--embedded-data-dir ${config.embeddedDataDir} is not on a writable volume`);
    for (const addr of config.dnsListen) {
      const port = parseListenAddress(addr, '--dns-listen').port;
      for (const proto of ['UDP', 'TCP']) {
        if (!ports.some((p) => p['containerPort'] === port && (p['protocol'] ?? 'TCP') === proto))
          problems.push(`--dns-listen port ${port}/${proto} is not a container port`);
      }
    }
  }

  for (const svc of ofKind(objs, 'Service')) {
    const sel = (get(svc, 'spec', 'selector') ?? {}) as Record<string, unknown>;
    if (Object.keys(sel).length === 0 || Object.entries(sel).some(([k, v]) => podLabels[k] !== v))
      problems.push(`${nameOf(svc)}: selector does not select the Hostwarden pod`);
    for (const p of list(get(svc, 'spec', 'ports'))) {
      const target = p['targetPort'] ?? p['port'];
      const cp = typeof target === 'number' ? ports.find((x) => x['containerPort'] === target) : portByName.get(String(target));
      if (cp === undefined) problems.push(`${nameOf(svc)}: targetPort ${String(target)} is not a container port`);
      else if ((cp['protocol'] ?? 'TCP') !== (p['protocol'] ?? 'TCP'))
        problems.push(`${nameOf(svc)}: port ${String(p['name'])} protocol differs from the container's`);
    }
  }

  const sa = String(get(pod, 'serviceAccountName') ?? 'default');
  const accounts = ofKind(objs, 'ServiceAccount');
  if (accounts.length > 0 && !accounts.some((a) => get(a, 'metadata', 'name') === sa))
    problems.push(`serviceAccountName ${sa} is not the ServiceAccount defined here`);
  return { problems, config };
}

export interface Grants {
  /** `group/resource:verb` granted cluster-wide (ClusterRole bound by a ClusterRoleBinding). */
  cluster: Set<string>;
  /** Same, granted in the given namespace only (Role bound by a RoleBinding). */
  namespaced: Set<string>;
  problems: string[];
}

/** What the service account may do, following the bindings to their roles. */
export function grantsOf(objs: readonly Obj[], account: { name: string; namespace: string }): Grants {
  const out: Grants = { cluster: new Set(), namespaced: new Set(), problems: [] };
  const bound = (b: Obj): boolean =>
    list(b['subjects']).some((s) => s['kind'] === 'ServiceAccount' && s['name'] === account.name && s['namespace'] === account.namespace);
  const collect = (role: Obj, into: Set<string>): void => {
    for (const rule of list(role['rules'])) {
      // resourceNames only narrow a rule (the embedded replicas' Secret, read by name); the verb counts as granted.
      const names = strings(rule['resourceNames']);
      if (rule['nonResourceURLs'] !== undefined || (rule['resourceNames'] !== undefined && names.length === 0))
        out.problems.push(`${nameOf(role)}: nonResourceURLs or empty resourceNames are not expected`);
      if (names.length > 0 && strings(rule['verbs']).some((v) => v === 'create' || v === 'list' || v === 'deletecollection'))
        out.problems.push(`${nameOf(role)}: resourceNames cannot limit create, list or deletecollection`);
      for (const g of strings(rule['apiGroups']))
        for (const r of strings(rule['resources']))
          for (const v of strings(rule['verbs'])) {
            if (g === '*' || r === '*' || v === '*') out.problems.push(`${nameOf(role)}: wildcard in a rule`);
            into.add(`${g === '' ? 'core' : g}/${r}:${v}`);
          }
    }
  };
  for (const b of ofKind(objs, 'ClusterRoleBinding').filter(bound)) {
    const role = ofKind(objs, 'ClusterRole').find((r) => get(r, 'metadata', 'name') === get(b, 'roleRef', 'name'));
    if (get(b, 'roleRef', 'kind') !== 'ClusterRole' || role === undefined) out.problems.push(`${nameOf(b)}: roleRef names no ClusterRole defined here`);
    else collect(role, out.cluster);
  }
  for (const b of ofKind(objs, 'RoleBinding').filter(bound)) {
    const ns = get(b, 'metadata', 'namespace');
    const role = ofKind(objs, get(b, 'roleRef', 'kind') === 'Role' ? 'Role' : 'ClusterRole').find(
      (r) => get(r, 'metadata', 'name') === get(b, 'roleRef', 'name'),
    );
    if (ns !== account.namespace) out.problems.push(`${nameOf(b)}: binds in namespace ${String(ns)}, not Hostwarden's`);
    if (role === undefined || (role['kind'] === 'Role' && get(role, 'metadata', 'namespace') !== ns))
      out.problems.push(`${nameOf(b)}: roleRef names no Role in its namespace`);
    else collect(role, out.namespaced);
  }
  return out;
}
