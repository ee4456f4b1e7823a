/**
 * Validates the external-dns Cloudflare conformance data (facts restated from upstream's
 * provider/cloudflare tests) so the replay runner can trust its shape: every case names its
 * upstream test, has a kind its file allows and the fields that kind needs, and names are unique
 * per file. The README's case counts must match the files. Replaying happens elsewhere.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';

type Json = Record<string, unknown>;

const FILES: Record<string, string[]> = {
  'records.json': ['records'],
  'zones.json': ['zones'],
  'errors.json': ['zones'],
  'apply-changes.json': ['sync', 'sync-steps', 'apply'],
  'proxied.json': ['sync', 'plan'],
  'provider-specific.json': ['plan', 'adjust'],
  'comments.json': ['apply'],
  'regional.json': ['sync', 'apply', 'records', 'adjust'],
  'custom-hostnames.json': ['apply', 'sync-steps'],
  'batch.json': ['apply', 'chunk'],
  'pagination.json': ['records', 'sync'],
  'credentials.json': ['credentials'],
};

const UPSTREAM_FILES = [
  'provider/cloudflare/cloudflare_test.go',
  'provider/cloudflare/cloudflare_batch_test.go',
  'provider/cloudflare/cloudflare_custom_hostnames_test.go',
  'provider/cloudflare/cloudflare_regional_test.go',
  'provider/cloudflare/pagination_test.go',
];

const FAULT_OPS = new Set([
  'list-zones',
  'get-zone',
  'list-records',
  'create',
  'update',
  'delete',
  'batch',
  'list-custom-hostnames',
  'create-custom-hostname',
  'delete-custom-hostname',
  'list-regional-hostnames',
  'create-regional-hostname',
  'update-regional-hostname',
  'delete-regional-hostname',
]);

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkEndpoints(where: string, v: unknown): void {
  if (isObject(v) && isObject(v['generate'])) {
    const g = v['generate'];
    assert.equal(typeof g['count'], 'number', `${where}: generate.count`);
    assert.equal(typeof g['name'], 'string', `${where}: generate.name`);
    return;
  }
  assert.ok(Array.isArray(v), `${where}: endpoints must be an array or {generate}`);
  for (const [i, e] of v.entries()) {
    assert.ok(isObject(e), `${where}[${i}]: endpoint object`);
    assert.equal(typeof e['dnsName'], 'string', `${where}[${i}].dnsName`);
    assert.equal(typeof e['recordType'], 'string', `${where}[${i}].recordType`);
    assert.ok(Array.isArray(e['targets']), `${where}[${i}].targets`);
  }
}

function checkApi(where: string, api: unknown): void {
  assert.ok(isObject(api), `${where}: api object`);
  assert.ok(Array.isArray(api['zones']), `${where}: api.zones`);
  const ids = new Set<string>();
  for (const z of api['zones'] as unknown[]) {
    assert.ok(isObject(z) && typeof z['id'] === 'string' && typeof z['name'] === 'string', `${where}: zone {id, name}`);
    ids.add(z['id'] as string);
  }
  assert.ok(isObject(api['records']), `${where}: api.records`);
  for (const [zoneId, recs] of Object.entries(api['records'] as Json)) {
    assert.ok(ids.has(zoneId), `${where}: records for unknown zone ${zoneId}`);
    assert.ok(Array.isArray(recs), `${where}: records of ${zoneId}`);
    for (const r of recs as unknown[]) {
      assert.ok(isObject(r) && typeof r['name'] === 'string' && typeof r['type'] === 'string', `${where}: record {name, type}`);
    }
  }
  for (const f of (api['faults'] as unknown[] | undefined) ?? []) checkFault(where, f);
}

function checkFault(where: string, f: unknown): void {
  assert.ok(isObject(f), `${where}: fault object`);
  assert.ok(FAULT_OPS.has(f['op'] as string), `${where}: unknown fault op ${String(f['op'])}`);
  assert.ok(isObject(f['error']), `${where}: fault.error`);
}

function checkChanges(where: string, changes: unknown): void {
  assert.ok(isObject(changes), `${where}: changes object`);
  for (const key of Object.keys(changes)) assert.ok(['create', 'updateOld', 'updateNew', 'delete'].includes(key), `${where}: changes.${key}`);
  for (const key of ['create', 'updateOld', 'updateNew', 'delete']) {
    if (changes[key] !== undefined) checkEndpoints(`${where}.changes.${key}`, changes[key]);
  }
  const oldLen = Array.isArray(changes['updateOld']) ? changes['updateOld'].length : 0;
  const newLen = Array.isArray(changes['updateNew']) ? changes['updateNew'].length : 0;
  assert.equal(oldLen, newLen, `${where}: updateOld and updateNew pair up`);
}

function checkCase(file: string, c: Json): void {
  const where = `${file} "${String(c['name'])}"`;
  const kind = c['kind'] as string;
  assert.ok(FILES[file]?.includes(kind), `${where}: kind ${kind} not allowed in ${file}`);
  assert.ok(isObject(c['expect']) || kind === 'sync-steps', `${where}: expect`);
  if (c['config'] !== undefined) assert.ok(isObject(c['config']), `${where}: config object`);
  switch (kind) {
    case 'records':
    case 'zones':
      checkApi(where, c['api']);
      break;
    case 'adjust':
      checkEndpoints(`${where}.endpoints`, c['endpoints']);
      assert.ok(Array.isArray((c['expect'] as Json)['properties']), `${where}: expect.properties`);
      break;
    case 'apply':
      checkApi(where, c['api']);
      checkChanges(where, c['changes']);
      break;
    case 'sync':
      checkApi(where, c['api']);
      checkEndpoints(`${where}.endpoints`, c['endpoints']);
      assert.ok(Array.isArray(c['managedRecords']), `${where}: managedRecords`);
      break;
    case 'sync-steps':
      checkApi(where, c['api']);
      assert.ok(Array.isArray(c['managedRecords']), `${where}: managedRecords`);
      assert.ok(Array.isArray(c['steps']) && c['steps'].length > 0, `${where}: steps`);
      for (const [i, s] of (c['steps'] as unknown[]).entries()) {
        assert.ok(isObject(s) && typeof s['subtest'] === 'string' && isObject(s['expect']), `${where}: step ${i} {subtest, expect}`);
        checkEndpoints(`${where}.steps[${i}].endpoints`, s['endpoints']);
        for (const f of (s['faults'] as unknown[] | undefined) ?? []) checkFault(`${where}.steps[${i}]`, f);
      }
      break;
    case 'plan':
      checkApi(where, c['api']);
      assert.ok(Array.isArray(c['managedRecords']), `${where}: managedRecords`);
      assert.ok(c['desiredFromCurrent'] === true || Array.isArray(c['endpoints']), `${where}: endpoints or desiredFromCurrent`);
      assert.ok(isObject((c['expect'] as Json)['plan']), `${where}: expect.plan`);
      break;
    case 'chunk':
      assert.ok(isObject(c['input']) && typeof c['limit'] === 'number', `${where}: input and limit`);
      assert.ok(Array.isArray((c['expect'] as Json)['chunks']), `${where}: expect.chunks`);
      break;
    case 'credentials':
      assert.ok(isObject(c['env']), `${where}: env`);
      assert.equal(typeof (c['expect'] as Json)['ok'], 'boolean', `${where}: expect.ok`);
      break;
    default:
      assert.fail(`${where}: unknown kind ${kind}`);
  }
}

const readme = await readFile(new URL('./README.md', import.meta.url), 'utf8');

describe('external-dns cloudflare conformance data', () => {
  for (const file of Object.keys(FILES)) {
    test(file, async () => {
      const doc = JSON.parse(await readFile(new URL(`./${file}`, import.meta.url), 'utf8')) as Json;
      assert.match(doc['upstreamCommit'] as string, /^[0-9a-f]{40}$/);
      assert.equal(typeof doc['about'], 'string');
      const cases = doc['cases'] as Json[];
      const skipped = doc['skipped'] as Json[];
      assert.ok(Array.isArray(cases) && cases.length > 0, 'cases');
      assert.ok(Array.isArray(skipped), 'skipped');
      const names = new Set<string>();
      for (const c of cases) {
        assert.equal(typeof c['name'], 'string');
        assert.ok(!names.has(c['name'] as string), `duplicate name ${String(c['name'])}`);
        names.add(c['name'] as string);
        const up = c['upstreamTest'] as string;
        assert.ok(
          UPSTREAM_FILES.some((f) => up.startsWith(`${f} Test`)),
          `${String(c['name'])}: upstreamTest names a file and test`,
        );
        if (c['differs'] !== undefined) assert.equal(typeof c['differs'], 'string');
        checkCase(file, c);
      }
      for (const s of skipped) {
        assert.ok(
          UPSTREAM_FILES.some((f) => (s['upstreamTest'] as string).startsWith(`${f} Test`)),
          'skipped.upstreamTest',
        );
        assert.equal(typeof s['reason'], 'string');
      }
      const row = new RegExp(`\\| \`${file.replace('.', '\\.')}\` +\\| ${cases.length} +\\| ${skipped.length} +\\|`);
      assert.match(readme, row, `README row for ${file} with ${cases.length} cases, ${skipped.length} skipped`);
    });
  }
});
