/**
 * Synchronisation policies with external-dns names and meaning: `sync` may create, update and
 * delete; `upsert-only` never deletes; `create-only` only creates. The planner asks before it
 * emits each change so that a forbidden change becomes an explainable decision, not a silent drop.
 */

export const POLICIES = ['sync', 'upsert-only', 'create-only'] as const;
export type Policy = (typeof POLICIES)[number];

export type ChangeKind = 'create' | 'update' | 'delete';

export function isPolicy(value: string): value is Policy {
  return (POLICIES as readonly string[]).includes(value);
}

export function policyAllows(policy: Policy, kind: ChangeKind): boolean {
  switch (policy) {
    case 'sync':
      return true;
    case 'upsert-only':
      return kind !== 'delete';
    case 'create-only':
      return kind === 'create';
  }
}

/** The sentence used in decisions when a policy stops a change. */
export function policyForbidsReason(policy: Policy, kind: ChangeKind): string {
  return `policy ${policy} forbids ${kind}s`;
}
