import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifest } from './parse.ts';

describe('parseManifest', () => {
  test('multi-document YAML keeps each object line', () => {
    const text = '# leading comment\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n---\n\nkind: Ingress\nmetadata:\n  name: b\n';
    const parsed = parseManifest(text);
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(
      parsed.objects.map((o) => o.line),
      [2, 8],
    );
    assert.equal(parsed.objects[0]?.lineOf(['metadata', 'name']), 5);
    assert.equal(parsed.objects[1]?.lineOf(['metadata', 'name']), 10);
    assert.equal(parsed.objects[1]?.lineOf(['nope']), undefined);
  });

  test('empty documents are skipped', () => {
    assert.deepEqual(parseManifest('').objects, []);
    assert.deepEqual(parseManifest('---\n---\n# only a comment\n').objects, []);
  });

  test('List items are unpacked with their own lines; API lists fill kind and apiVersion', () => {
    const text = 'apiVersion: v1\nkind: List\nitems:\n  - kind: Service\n    metadata:\n      name: a\n  - kind: Ingress\n    metadata:\n      name: b\n';
    const parsed = parseManifest(text);
    assert.deepEqual(
      parsed.objects.map((o) => [(o.object as { kind: string }).kind, o.line]),
      [
        ['Service', 4],
        ['Ingress', 7],
      ],
    );
    assert.equal(parsed.objects[1]?.lineOf(['metadata', 'name']), 9);
    const api = parseManifest('{"apiVersion": "v1", "kind": "ServiceList", "items": [{"metadata": {"name": "x"}}]}');
    assert.deepEqual(api.objects[0]?.object, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' } });
  });

  test('JSON is read with line numbers', () => {
    const parsed = parseManifest('{\n  "kind": "Service",\n  "metadata": {\n    "name": "x"\n  }\n}\n');
    assert.equal(parsed.objects.length, 1);
    assert.equal(parsed.objects[0]?.lineOf(['metadata', 'name']), 4);
  });

  test('a broken document is an error with a line; the other documents survive', () => {
    const parsed = parseManifest(
      'kind: Service\nmetadata:\n  name: a\n---\nkind: Service\nmetadata:\n  name: [oops\n---\nkind: Service\nmetadata:\n  name: c\n',
    );
    assert.equal(parsed.objects.length, 2);
    assert.equal(parsed.errors.length, 1);
    assert.ok((parsed.errors[0]?.line ?? 0) >= 5, `line ${parsed.errors[0]?.line}`);
    assert.doesNotMatch(parsed.errors[0]?.message ?? '', /\n/);
  });

  test('alias bombs are refused', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i += 1)
      lines.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(',')}]`,
      );
    const parsed = parseManifest(lines.join('\n'));
    assert.equal(parsed.objects.length, 0);
    assert.equal(parsed.errors.length, 1);
  });
});
