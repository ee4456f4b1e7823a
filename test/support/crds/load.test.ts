import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApiServer } from '../kube-apiserver/server.ts';
import { installCrd, loadCrd, servedApiVersions } from './load.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const projects = readdirSync(HERE, { withFileTypes: true }).filter((d) => d.isDirectory());

describe('restated upstream CRDs', () => {
  for (const p of projects) {
    for (const file of readdirSync(join(HERE, p.name)).filter((f) => f.endsWith('.json'))) {
      test(`${p.name}/${file}: named as its file, upstream source given, every served version has a schema with patterns that compile`, () => {
        const crd = loadCrd(p.name, file.slice(0, -'.json'.length));
        assert.match(crd.metadata.annotations?.['hostwarden.test/source'] ?? '', /^https:\/\//);
        assert.ok(servedApiVersions(crd).length > 0);
        for (const v of crd.spec.versions) {
          assert.equal(typeof v.schema?.openAPIV3Schema, 'object', `${v.name} has no schema`);
          JSON.stringify(v.schema, (k, x: unknown) => {
            if (k === 'pattern' && typeof x === 'string') assert.doesNotThrow(() => new RegExp(x), `${v.name}: pattern ${x}`);
            return x;
          });
        }
      });
    }
  }

  test('loadCrd names the file when the CRD is missing; installCrd serves every version', async () => {
    assert.throws(() => loadCrd('gateway-api', 'nothings.example.com'), /nothings\.example\.com\.json/);
    const api = await startTestApiServer();
    try {
      const crd = loadCrd('gateway-api-experimental', 'tcproutes.gateway.networking.k8s.io');
      await installCrd(api, crd);
      assert.deepEqual(servedApiVersions(crd), ['gateway.networking.k8s.io/v1', 'gateway.networking.k8s.io/v1alpha2']);
    } finally {
      await api.stop();
    }
  });
});
