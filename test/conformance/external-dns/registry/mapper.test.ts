/**
 * Replays external-dns's name mapper tests (registry/mapper/mapper_test.go), restated in
 * mapper.json, through Hostwarden's TXTNameMapper: record names to ownership TXT names and back.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { silentLogger } from '../../../../src/log.ts';
import { TXTNameMapper } from '../../../../src/registry/txt/name-mapper.ts';
import { validateOptions } from '../../../../src/registry/txt/options.ts';
import { readCases } from '../plan/endpoints.ts';
import type { BaseCase } from '../plan/endpoints.ts';

interface MapperOptions {
  prefix: string;
  suffix: string;
  wildcardReplacement: string;
}

interface MapperCase extends BaseCase {
  kind: 'toEndpointName' | 'toTXTName' | 'recordTypeInAffix' | 'roundTrip';
  mapper: MapperOptions;
  txtName?: string;
  expectName?: string;
  expectType?: string;
  /** False where upstream ignores the type its helper returns. */
  compareTypeToo?: boolean;
  dnsName?: string;
  recordType?: string;
  expectTXTName?: string;
  expect?: boolean;
  hostwarden?: { optionsRefused?: boolean; expectName?: string; expectType?: string; expectTXTName?: string };
}

function check(c: MapperCase): void {
  if (c.differs !== undefined && c.hostwarden?.optionsRefused === true) {
    assert.throws(() =>
      validateOptions({
        ownerId: 'owner',
        prefix: c.mapper.prefix,
        suffix: c.mapper.suffix,
        managedRecordTypes: [],
        excludeRecordTypes: [],
        logger: silentLogger(),
      }),
    );
    return;
  }
  const want = c.differs === undefined ? c : { ...c, ...c.hostwarden };
  const mapper = new TXTNameMapper(c.mapper);
  switch (c.kind) {
    case 'toEndpointName': {
      const got = mapper.toEndpointName(c.txtName ?? '');
      // Upstream answers ("", "") for a name it does not recognise, ("name", "") for the old format.
      assert.equal(got?.dnsName ?? '', want.expectName);
      if (c.compareTypeToo !== false) assert.equal(got?.recordType ?? '', want.expectType);
      return;
    }
    case 'toTXTName':
      assert.equal(mapper.toTXTName(c.dnsName ?? '', c.recordType ?? ''), want.expectTXTName);
      return;
    case 'recordTypeInAffix':
      assert.equal(mapper.recordTypeInAffix, c.expect);
      return;
    case 'roundTrip': {
      const txt = mapper.toTXTName(c.dnsName ?? '', c.recordType ?? '');
      assert.equal(txt, want.expectTXTName);
      assert.equal(mapper.toEndpointName(txt)?.dnsName, c.dnsName);
      return;
    }
  }
}

const data = await readCases<MapperCase>(new URL('./mapper.json', import.meta.url));
describe(`external-dns ${data.upstream}`, () => {
  for (const c of data.cases) test(`${c.upstreamTest}${c.differs === undefined ? '' : ' (differs)'}`, () => check(c));
});

test('every mapper differs case says why in one sentence and gives Hostwarden answer', () => {
  for (const c of data.cases) {
    if (c.differs === undefined) continue;
    assert.ok(c.hostwarden !== undefined, `${c.upstreamTest} differs without a hostwarden answer`);
    assert.match(c.differs, /^[A-Z].*\.$/, `${c.upstreamTest}: one sentence`);
  }
});
