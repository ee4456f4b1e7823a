/**
 * Server-side printing (`as=Table` in Accept), which `kubectl get` asks for: the real server's
 * columns differ per kind; this one prints Name and Age for every kind.
 */
import type { KubeObject } from './types.ts';

/** True when the Accept header asks for a meta.k8s.io Table. */
export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept.split(',')[0] ?? '');
}

function age(created: string | undefined, now: Date): string {
  if (created === undefined) return '<unknown>';
  const s = Math.max(0, Math.floor((now.getTime() - Date.parse(created)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

function rowObject(obj: KubeObject, includeObject: string | null): unknown {
  if (includeObject === 'None') return undefined;
  if (includeObject === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function toTable(objs: KubeObject[], listMeta: Record<string, unknown>, includeObject: string | null, now: Date): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
      { name: 'Age', type: 'string', format: '', description: 'CreationTimestamp of the object.', priority: 0 },
    ],
    rows: objs.map((o) => ({ cells: [o.metadata.name, age(o.metadata.creationTimestamp, now)], object: rowObject(o, includeObject) })),
  };
}
