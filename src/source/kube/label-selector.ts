/**
 * A Kubernetes LabelSelector object (`matchLabels` + `matchExpressions`) evaluated against labels,
 * as the API server does. Used for Gateway listener `allowedRoutes.namespaces.selector`.
 */
import { asArray, asRecord, asString, stringArray } from '../translate/object.ts';
import type { JsonRecord } from '../translate/object.ts';

/** An absent selector matches nothing (the Gateway API requires one with `from: Selector`); an empty one matches everything. */
export function labelSelectorMatches(selector: JsonRecord | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (selector === undefined) return false;
  for (const [k, v] of Object.entries(asRecord(selector['matchLabels']) ?? {})) {
    if (labels[k] !== asString(v)) return false;
  }
  for (const raw of asArray(selector['matchExpressions'])) {
    const e = asRecord(raw);
    const key = asString(e?.['key']) ?? '';
    const values = stringArray(e?.['values']);
    const has = Object.hasOwn(labels, key);
    switch (asString(e?.['operator'])) {
      case 'In':
        if (!has || !values.includes(labels[key] ?? '')) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[key] ?? '')) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        // An unknown operator is an invalid selector, which selects nothing.
        return false;
    }
  }
  return true;
}
