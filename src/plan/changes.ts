/**
 * The change set a plan produces and a registry and provider apply, in external-dns's shape
 * (`plan.Changes`: Create, UpdateOld, UpdateNew, Delete). It lives with the planner, which makes
 * it; providers import it from here.
 */
import type { Endpoint } from '../endpoint/endpoint.ts';

export interface Changes {
  create: Endpoint[];
  updateOld: Endpoint[];
  updateNew: Endpoint[];
  delete: Endpoint[];
}

export function emptyChanges(): Changes {
  return { create: [], updateOld: [], updateNew: [], delete: [] };
}

export function hasChanges(changes: Changes): boolean {
  return changes.create.length + changes.updateNew.length + changes.delete.length > 0;
}
