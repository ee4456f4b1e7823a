/**
 * Hive's ClusterDeployment conditions as its controllerutils handle them: the condition shape with
 * lastProbeTime, initialization (Unknown/Initialized), set-with-change-check, the sort order, the
 * scrub of error messages, the pause annotation and the awsprivatelink controller's shouldSync.
 * Restated from Hive's behaviour so a cluster moved between Hive and Hostwarden reads the same.
 */
import type { ClusterDeployment, HiveCondition, HiveConditionStatus } from './types.ts';
import { FAILED, FINALIZER, READY } from './types.ts';

export type ConditionsChange = { list: HiveCondition[]; changed: boolean };

/** Hive's condition types whose desired state is True; every other type is desired False. */
export const POSITIVE_POLARITY: ReadonlySet<string> = new Set([
  'ActiveAPIURLOverride',
  'Hibernating',
  'Ready',
  READY,
  'ClusterInstallCompleted',
  'ClusterInstallRequirementsMet',
  'RequirementsMet',
  'Provisioned',
]);

export const INITIALIZED_REASON = 'Initialized';
export const INITIALIZED_MESSAGE = 'Condition Initialized';
export const PAUSE_ANNOTATION = 'hive.openshift.io/reconcile-pause';

/** metav1.Time marshals to RFC 3339 with whole seconds. */
export function metaTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Go's strconv.ParseBool; undefined where Go returns an error. */
export function parseGoBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

export function isPaused(cd: ClusterDeployment): boolean {
  return parseGoBool(cd.metadata.annotations?.[PAUSE_ANNOTATION]) === true;
}

/** Adds the missing types as Unknown/Initialized; existing conditions are left alone. */
export function initializeConditions(existing: readonly HiveCondition[] | undefined, types: readonly string[], now: Date): ConditionsChange {
  const list = [...(existing ?? [])];
  let changed = false;
  const t = metaTime(now);
  for (const type of types) {
    if (list.some((c) => c.type === type)) continue;
    list.push({ type, status: 'Unknown', reason: INITIALIZED_REASON, message: INITIALIZED_MESSAGE, lastTransitionTime: t, lastProbeTime: t });
    changed = true;
  }
  return { list, changed };
}

export type UpdateCheck = 'always' | 'ifReasonOrMessageChange';

/** Sets one condition; with 'ifReasonOrMessageChange' an identical status, reason and message changes nothing. */
export function setConditionWithChangeCheck(
  existing: readonly HiveCondition[] | undefined,
  input: { type: string; status: HiveConditionStatus; reason: string; message: string },
  check: UpdateCheck,
  now: Date,
): ConditionsChange {
  const list = [...(existing ?? [])];
  const t = metaTime(now);
  const i = list.findIndex((c) => c.type === input.type);
  const old = i >= 0 ? list[i] : undefined;
  if (old === undefined) {
    list.push({ ...input, lastTransitionTime: t, lastProbeTime: t });
  } else {
    const differs = old.status !== input.status || check === 'always' || (old.reason ?? '') !== input.reason || (old.message ?? '') !== input.message;
    if (!differs) return { list, changed: false };
    list[i] = { ...old, ...input, lastTransitionTime: old.status !== input.status ? t : old.lastTransitionTime, lastProbeTime: t };
  }
  return { list: sortConditions(list), changed: true };
}

function desired(c: HiveCondition): boolean {
  return POSITIVE_POLARITY.has(c.type) ? c.status === 'True' : c.status === 'False';
}

function less(a: HiveCondition, b: HiveCondition): boolean {
  if (a.status !== 'Unknown' && b.status === 'Unknown') return true;
  if (a.status === 'Unknown' && b.status !== 'Unknown') return false;
  if (!desired(a) && desired(b)) return true;
  if (desired(a) && !desired(b)) return false;
  return a.type < b.type;
}

/** Undesired first, then desired, Unknown last; by type within each group (a stable sort, as Hive's). */
export function sortConditions(list: HiveCondition[]): HiveCondition[] {
  return list.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
}

/** setErrCondition: Failed=True and Ready=False with the same reason and message. */
export function errConditions(existing: readonly HiveCondition[] | undefined, reason: string, message: string, now: Date): ConditionsChange {
  const failed = setConditionWithChangeCheck(existing, { type: FAILED, status: 'True', reason, message }, 'ifReasonOrMessageChange', now);
  const ready = setConditionWithChangeCheck(failed.list, { type: READY, status: 'False', reason, message }, 'ifReasonOrMessageChange', now);
  return { list: ready.list, changed: failed.changed || ready.changed };
}

/**
 * setReadyCondition: progress (False) moves Ready only while it is not True yet; True also sets
 * Failed=False with the same reason, and a True Ready is always rewritten so lastProbeTime records
 * the last good sync (shouldSync measures from it).
 */
export function readyConditions(
  existing: readonly HiveCondition[] | undefined,
  status: 'True' | 'False',
  reason: string,
  message: string,
  now: Date,
): ConditionsChange {
  let list = [...(existing ?? [])];
  let failedChanged = false;
  if (status === 'True')
    ({ list, changed: failedChanged } = setConditionWithChangeCheck(list, { type: FAILED, status: 'False', reason, message }, 'ifReasonOrMessageChange', now));
  const ready = list.find((c) => c.type === READY);
  let readyChanged = false;
  if (ready === undefined || ready.status !== 'True') {
    ({ list, changed: readyChanged } = setConditionWithChangeCheck(list, { type: READY, status, reason, message }, 'ifReasonOrMessageChange', now));
  } else if (status === 'True') {
    ({ list, changed: readyChanged } = setConditionWithChangeCheck(list, { type: READY, status, reason, message }, 'always', now));
  }
  return { list, changed: failedChanged || readyChanged };
}

const SCRUBS: [RegExp, string][] = [
  [/\n\t/g, ', '],
  [/(, )*([rR][eE][qQ][uU][eE][sS][tT] ?[iI][dD]: )[-0-9a-fA-F]+/g, ''],
  [/(User: arn:aws:sts::)\S+(:assumed-role\/[^/]+\/)\S+( is not authorized to perform: \S+ on resource: arn:aws:iam::)[^:]+(:\S+)/g, '$1XXX$2XXX$3XXX$4'],
  [/(User: arn:aws:sts::)\S+(:assumed-role\/[^/]+\/)\S+( is not authorized to perform: \S)/g, '$1XXX$2XXX$3'],
  [/(Encoded authorization failure message: )[^,]+,/g, '$1XXX,'],
  [/: current time \S+ is after \S+/g, ''],
];

/** Hive's ErrorScrub: removes what changes on every attempt (request IDs, accounts) so status settles. */
export function errorScrub(message: string): string {
  let s = message;
  for (const [re, to] of SCRUBS) s = s.replace(re, to);
  const azure = /"error_description":"(.*?)\\r\\n/.exec(s);
  return azure === null ? s : azure[1]!;
}

export const WINDOW_INSTALLED_MS = 2 * 60 * 60_000;
export const WINDOW_INSTALLING_MS = 10 * 60_000;

/** Go's Duration.Round(time.Minute): halves round away from zero. */
function roundMinute(ms: number): number {
  return Math.floor(ms / 60_000 + 0.5) * 60_000;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/**
 * Whether to talk to AWS now, as Hive's shouldSync: at once while deleting, failed, not Ready, or
 * when spec and status additionalAllowedPrincipals differ; else once the window (2 h installed,
 * 10 min installing) since Ready's lastProbeTime has passed. `afterMs` is when to look again.
 */
export function shouldSync(cd: ClusterDeployment, now: Date): { sync: boolean; afterMs: number } {
  if (cd.metadata.deletionTimestamp !== undefined) return { sync: (cd.metadata.finalizers ?? []).includes(FINALIZER), afterMs: 0 };
  const conds = (cd.status?.conditions ?? []) as HiveCondition[];
  if (conds.find((c) => c.type === FAILED)?.status === 'True') return { sync: true, afterMs: 0 };
  const ready = conds.find((c) => c.type === READY);
  if (ready === undefined || ready.status !== 'True') return { sync: true, afterMs: 0 };
  const probed = ready.lastProbeTime === undefined ? 0 : Date.parse(ready.lastProbeTime);
  const delta = now.getTime() - (Number.isNaN(probed) ? 0 : probed);
  const window = cd.spec.installed === true ? WINDOW_INSTALLED_MS : WINDOW_INSTALLING_MS;
  if (delta >= window) return { sync: true, afterMs: 0 };
  const afterMs = roundMinute(window - delta) || 60_000;
  const recorded = cd.status?.platformStatus?.aws?.privateLink?.vpcEndpointService;
  // Status never lists the hub's own ARN among the additional ones, so a spec naming it would differ
  // forever and sync on every status write (a hot loop Hive has); leave it out of the comparison.
  const spec = (cd.spec.platform?.aws?.privateLink?.additionalAllowedPrincipals ?? []).filter((p) => p !== recorded?.defaultAllowedPrincipal);
  if (!sameSet(spec, recorded?.additionalAllowedPrincipals ?? [])) return { sync: true, afterMs: 0 };
  return { sync: false, afterMs };
}

export function findCondition(list: readonly HiveCondition[] | undefined, type: string): HiveCondition | undefined {
  return list?.find((c) => c.type === type);
}
