/**
 * Label and field selectors in kube-apiserver's query syntax. Field selectors accept any dotted
 * path (the real server allows a fixed set per kind; `metadata.name` and `metadata.namespace`
 * everywhere), compared as strings.
 */
import { badRequest, isRecord } from './types.ts';
import type { KubeObject } from './types.ts';

type Requirement =
  { op: 'eq' | 'ne'; key: string; value: string } | { op: 'in' | 'notin'; key: string; values: string[] } | { op: 'exists' | 'absent'; key: string };

export type Selector = (obj: KubeObject) => boolean;

/** Splits on commas outside parentheses. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

function parseRequirement(term: string, param: string): Requirement {
  const set = /^(\S+)\s+(in|notin)\s+\((.*)\)$/.exec(term);
  if (set !== null) {
    const values = set[3]!
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    return { op: set[2] === 'in' ? 'in' : 'notin', key: set[1]!, values };
  }
  const cmp = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
  if (cmp !== null) return { op: cmp[2] === '!=' ? 'ne' : 'eq', key: cmp[1]!, value: cmp[3]!.trim() };
  if (/^![^=!\s()]+$/.test(term)) return { op: 'absent', key: term.slice(1) };
  if (/^[^=!\s()]+$/.test(term)) return { op: 'exists', key: term };
  throw badRequest(`unable to parse requirement: invalid ${param} "${term}"`);
}

function matches(req: Requirement, value: string | undefined): boolean {
  switch (req.op) {
    case 'eq':
      return value === req.value;
    case 'ne':
      return value !== req.value;
    case 'in':
      return value !== undefined && req.values.includes(value);
    case 'notin':
      return value === undefined || !req.values.includes(value);
    case 'exists':
      return value !== undefined;
    case 'absent':
      return value === undefined;
  }
}

export function parseLabelSelector(s: string | null): Selector {
  if (s === null || s.trim() === '') return () => true;
  const reqs = splitTerms(s).map((t) => parseRequirement(t, 'labelSelector'));
  return (obj) => reqs.every((r) => matches(r, obj.metadata.labels?.[r.key]));
}

function fieldValue(obj: KubeObject, path: string): string | undefined {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isRecord(cur)) return undefined;
    cur = cur[part];
  }
  if (cur === undefined || cur === null) return path === 'metadata.namespace' ? '' : undefined;
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

export function parseFieldSelector(s: string | null): Selector {
  if (s === null || s.trim() === '') return () => true;
  const reqs = splitTerms(s).map((t) => parseRequirement(t, 'field selector'));
  for (const r of reqs) {
    if (r.op !== 'eq' && r.op !== 'ne') throw badRequest(`invalid field selector "${s}": only =, == and != are supported`);
  }
  return (obj) => reqs.every((r) => matches(r, fieldValue(obj, r.key) ?? ''));
}
