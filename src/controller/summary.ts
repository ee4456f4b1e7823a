/** Compact, structured description of a change set for logs. */
import { describeEndpoint } from '../endpoint/endpoint.ts';
import type { Changes } from '../plan/changes.ts';

const LIST_LIMIT = 20;

export function summariseChanges(changes: Changes): Record<string, unknown> {
  const names = (list: Changes['create']): string[] => {
    const shown = list.slice(0, LIST_LIMIT).map(describeEndpoint);
    if (list.length > LIST_LIMIT) shown.push(`… ${list.length - LIST_LIMIT} more`);
    return shown;
  };
  return {
    create: changes.create.length,
    update: changes.updateNew.length,
    delete: changes.delete.length,
    created: names(changes.create),
    updated: names(changes.updateNew),
    deleted: names(changes.delete),
  };
}
