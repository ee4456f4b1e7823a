/**
 * Manifest files → objects with line numbers. Multi-document YAML and JSON (read by the YAML
 * parser, which keeps positions) are supported, and `kind: List` / `*List` objects are unpacked.
 * A broken document is reported with its line and skipped; the file's other documents survive.
 */
import { LineCounter, isNode, parseAllDocuments } from 'yaml';
import type { Document } from 'yaml';
import { asArray, asRecord, asString } from '../translate/object.ts';

export interface ManifestObject {
  object: unknown;
  /** 1-based line where the object starts. */
  line: number;
  /** Line of a value inside the object, for problems that can be precise. */
  lineOf: (path: readonly (string | number)[]) => number | undefined;
}

export interface ManifestParseError {
  line: number;
  message: string;
}

export interface ParsedManifest {
  objects: ManifestObject[];
  errors: ManifestParseError[];
}

// Bounds the work a hostile file can cause through YAML aliases ("billion laughs").
const MAX_ALIAS_COUNT = 1000;

export function parseManifest(text: string): ParsedManifest {
  const lineCounter = new LineCounter();
  const objects: ManifestObject[] = [];
  const errors: ManifestParseError[] = [];
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line;

  for (const doc of docs) {
    const first = doc.errors[0];
    if (first !== undefined) {
      errors.push({ line: first.linePos?.[0].line ?? lineAt(first.pos[0]), message: firstLine(first.message) });
      continue;
    }
    if (doc.contents === null) continue;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      errors.push({ line: lineAt(doc.contents.range[0]), message: firstLine((err as Error).message) });
      continue;
    }
    if (value === null || value === undefined) continue;
    const nodeLine = (path: readonly (string | number)[]): number | undefined => {
      const node: unknown = doc.getIn(path, true);
      return isNode(node) && node.range !== undefined && node.range !== null ? lineAt(node.range[0]) : undefined;
    };
    collect(value, [], doc, nodeLine, lineAt(doc.contents.range[0]), objects);
  }
  return { objects, errors };
}

function collect(
  value: unknown,
  base: readonly (string | number)[],
  doc: Document.Parsed,
  nodeLine: (path: readonly (string | number)[]) => number | undefined,
  line: number,
  out: ManifestObject[],
): void {
  const rec = asRecord(value);
  const kind = asString(rec?.['kind']);
  if (rec !== undefined && kind !== undefined && kind.endsWith('List') && Array.isArray(rec['items'])) {
    // API lists (`ServiceList`) omit kind and apiVersion on items; `kind: List` items carry their own.
    const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
    const apiVersion = asString(rec['apiVersion']);
    asArray(rec['items']).forEach((item, i) => {
      const itemRec = asRecord(item);
      const filled = itemRec === undefined || itemKind === undefined ? item : { apiVersion, kind: itemKind, ...itemRec };
      const at = [...base, 'items', i];
      collect(filled, at, doc, nodeLine, nodeLine(at) ?? line, out);
    });
    return;
  }
  out.push({ object: value, line, lineOf: (path) => nodeLine([...base, ...path]) });
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
