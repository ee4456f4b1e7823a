/**
 * The four PATCH content types kube-apiserver accepts. JSON merge patch and JSON patch follow
 * RFC 7386 and RFC 6902; strategic merge patch is a merge patch that merges lists of named items
 * by name and primitive lists under `finalizers` as sets (with `$deleteFromPrimitiveList` and
 * `$patch: delete`), which covers what controllers and kubectl send; server-side apply is
 * simplified to a merge patch without field ownership.
 */
import { parse as parseYaml } from 'yaml';
import { ApiError, deepClone, isRecord } from './types.ts';

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export function patchTypeOf(contentType: string | undefined): PatchType {
  const ct = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  switch (ct) {
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/json-patch+json':
      return 'json';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+cbor':
      return 'apply';
    default:
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
      );
  }
}

export function parsePatchBody(type: PatchType, body: string): unknown {
  try {
    return type === 'apply' ? parseYaml(body) : JSON.parse(body);
  } catch (err) {
    throw new ApiError(400, 'BadRequest', `error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return deepClone(patch);
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function decodePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw invalidPatch(`invalid JSON pointer "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function invalidPatch(message: string): ApiError {
  return new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${message}`);
}

function parentOf(doc: unknown, parts: string[], path: string): { parent: unknown; key: string } {
  let cur = doc;
  for (const p of parts.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isRecord(cur)) cur = cur[p];
    else cur = undefined;
    if (cur === undefined) throw invalidPatch(`doc is missing path: "${path}": missing value`);
  }
  return { parent: cur, key: parts[parts.length - 1]! };
}

function getAt(doc: unknown, path: string): unknown {
  let cur = doc;
  for (const p of decodePointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isRecord(cur)) cur = cur[p];
    else return undefined;
  }
  return cur;
}

function removeAt(doc: unknown, path: string): unknown {
  const parts = decodePointer(path);
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw invalidPatch(`unable to remove nonexistent key: ${key}: missing value`);
    return parent.splice(i, 1)[0];
  }
  if (!isRecord(parent) || !(key in parent)) throw invalidPatch(`unable to remove nonexistent key: ${key}: missing value`);
  const v = parent[key];
  delete parent[key];
  return v;
}

function addAt(doc: unknown, path: string, value: unknown, replace: boolean): unknown {
  const parts = decodePointer(path);
  if (parts.length === 0) return deepClone(value);
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(i) || i < 0 || i > parent.length || (replace && i >= parent.length)) throw invalidPatch(`index out of range: ${key}`);
    if (replace) parent[i] = deepClone(value);
    else parent.splice(i, 0, deepClone(value));
  } else if (isRecord(parent)) {
    if (replace && !(key in parent)) throw invalidPatch(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    parent[key] = deepClone(value);
  } else {
    throw invalidPatch(`doc is missing path: "${path}": missing value`);
  }
  return doc;
}

export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new ApiError(400, 'BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = deepClone(target);
  for (const raw of ops) {
    if (!isRecord(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') throw invalidPatch('operation missing op or path');
    const { op, path } = raw;
    switch (op) {
      case 'add':
        doc = addAt(doc, path, raw.value, false);
        break;
      case 'replace':
        doc = addAt(doc, path, raw.value, true);
        break;
      case 'remove':
        removeAt(doc, path);
        break;
      case 'move': {
        const v = removeAt(doc, String(raw.from));
        doc = addAt(doc, path, v, false);
        break;
      }
      case 'copy':
        doc = addAt(doc, path, getAt(doc, String(raw.from)), false);
        break;
      case 'test':
        if (JSON.stringify(getAt(doc, path)) !== JSON.stringify(raw.value)) throw invalidPatch(`testing value ${path} failed: test failed`);
        break;
      default:
        throw invalidPatch(`Unexpected kind: ${op}`);
    }
  }
  return doc;
}

const SET_LISTS = new Set(['finalizers']);

function mergeKeyOf(items: unknown[]): string | undefined {
  for (const key of ['name', 'type', 'containerPort', 'port']) {
    if (items.length > 0 && items.every((i) => isRecord(i) && i[key] !== undefined)) return key;
  }
  return undefined;
}

function strategicList(field: string, target: unknown, patch: unknown[]): unknown[] {
  const base = Array.isArray(target) ? deepClone(target) : [];
  // An empty list clears, which is how `kubectl patch -p '{"metadata":{"finalizers":[]}}'` is used.
  if (patch.length === 0) return [];
  if (SET_LISTS.has(field)) {
    for (const v of patch) if (!base.some((b) => JSON.stringify(b) === JSON.stringify(v))) base.push(deepClone(v));
    return base;
  }
  const key = mergeKeyOf([...base, ...patch]);
  if (key === undefined || !base.every(isRecord)) return patch.filter((p) => !(isRecord(p) && p.$patch === 'delete')).map((p) => deepClone(p));
  const out = base as Record<string, unknown>[];
  for (const p of patch as Record<string, unknown>[]) {
    const i = out.findIndex((b) => b[key] === p[key]);
    if (p.$patch === 'delete') {
      if (i >= 0) out.splice(i, 1);
    } else if (i >= 0) {
      out[i] = strategicMerge(out[i], p) as Record<string, unknown>;
    } else {
      out.push(strategicMerge({}, p) as Record<string, unknown>);
    }
  }
  return out;
}

export function strategicMerge(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return deepClone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return deepClone(rest);
  }
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$setElementOrder/') || k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const drop = new Set((Array.isArray(v) ? v : []).map((x) => JSON.stringify(x)));
      const cur = out[field];
      if (Array.isArray(cur)) out[field] = cur.filter((x) => !drop.has(JSON.stringify(x)));
      continue;
    }
    if (v === null) delete out[k];
    else if (Array.isArray(v)) out[k] = strategicList(k, out[k], v);
    else out[k] = strategicMerge(out[k], v);
  }
  return out;
}

export function applyPatch(type: PatchType, target: unknown, patch: unknown): unknown {
  switch (type) {
    case 'merge':
    case 'apply':
      return mergePatch(target, patch);
    case 'json':
      return jsonPatch(target, patch);
    case 'strategic':
      return strategicMerge(target, patch);
  }
}
