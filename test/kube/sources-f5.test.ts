/**
 * The f5-virtualserver and f5-transportserver sources end to end: F5 CIS's CRDs installed in the
 * test API server, the sources built from the CLI flags, the controller syncing through the TXT
 * registry into the inmemory provider. VirtualServers and TransportServers are written as F5 CIS
 * does (spec by the user, `status.vsAddress` by the controller once it has an address): nothing
 * until the address is set; create, rename, delete; two VirtualServers asking for one name share a
 * record; a bad annotation is reported and skipped while the rest sync; Events land on the F5
 * objects. A source started before its CRD exists starts once the CRD appears.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TRANSPORTSERVERS, VIRTUALSERVERS } from '../../src/kube/resource.ts';
import type { KubeResource } from '../../src/kube/resource.ts';
import { f5Source } from '../../src/source/kube/f5.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { loadCrd, loadCrds } from '../support/crds/load.ts';
import { eventsFor, waitFor } from './harness.ts';
import { assertStartsOnceCrdsExist, configFromFlags, syncPipeline, until, useTestApiServer } from './source-harness.ts';

const A = 'external-dns.kubernetes.io/';
const NS = 'apps';
// What F5's TransportServer CRD requires besides the fields the source reads.
const TS_REQUIRED = { virtualServerPort: 5432, mode: 'standard', pool: { service: 'db', servicePort: 5432 } };

describe('f5-virtualserver and f5-transportserver against the test API server', () => {
  const suite = useTestApiServer({ namespaces: [NS], crds: loadCrds('f5') });

  /** Created as a user does, then given its address as F5 CIS does (a create drops the status). */
  const create = async (
    res: KubeResource,
    name: string,
    spec: Record<string, unknown>,
    annotations: Record<string, string> = {},
    vsAddress?: string,
  ): Promise<void> => {
    await suite.kube.create(res, { metadata: { name, namespace: NS, annotations }, spec });
    if (vsAddress !== undefined) await setAddress(res, name, vsAddress);
  };
  const setAddress = async (res: KubeResource, name: string, vsAddress: string): Promise<void> => {
    await suite.kube.patch(res, NS, name, { status: { vsAddress, status: vsAddress === 'None' ? 'Pending' : 'OK' } }, 'status');
  };

  /** Both sources built from flags, synced by the controller into a fresh inmemory zone, Events on. */
  const pipeline = async (problems: SourceProblem[]): Promise<{ records: () => Promise<string[]> }> => {
    const cfg = configFromFlags(['--source', 'f5-virtualserver', '--source', 'f5-transportserver', '--kubeconfig', suite.kubeconfig, '--namespace', NS]);
    const sources = (['f5-virtualserver', 'f5-transportserver'] as const).map((name) =>
      kubeSourceFromConfig(name, cfg, { logger: suite.logger, onProblem: (p) => problems.push(p) }),
    );
    const { records, close } = syncPipeline(sources, suite.writer, suite.logger);
    suite.closeAfter(close);
    return { records };
  };

  test('address, create, rename, shared names, a bad annotation, delete; Events on the F5 objects', async () => {
    const problems: SourceProblem[] = [];
    // Waiting for IPAM: status.vsAddress is None, nothing is published (and that is reported).
    await create(VIRTUALSERVERS, 'web', { host: 'web.example.org', hostAliases: ['www.example.org'], ipamLabel: 'prod' }, {}, 'None');
    await create(TRANSPORTSERVERS, 'db', { ...TS_REQUIRED, host: 'db.example.org', ipamLabel: 'prod' }, { [`${A}ttl`]: '120' });
    const { records } = await pipeline(problems);
    await waitFor('the pending VirtualServer is reported', () =>
      problems.some((p) => /VirtualServer\/apps\/web: .*missing a valid IP address/.test(p.message)) ? true : undefined,
    );
    assert.deepEqual(await records(), []);

    // F5 CIS assigns addresses: the VirtualServer's host and alias, and the TransportServer's host.
    await setAddress(VIRTUALSERVERS, 'web', '192.0.2.10');
    await setAddress(TRANSPORTSERVERS, 'db', '192.0.2.20');
    await until('addresses assigned', records, ['db.example.org A 192.0.2.20 120', 'web.example.org A 192.0.2.10 0', 'www.example.org A 192.0.2.10 0']);

    // Renamed host; a second VirtualServer asks for the same name (one record, both addresses),
    // with spec.virtualServerAddress winning over its status; a third has a bad target annotation
    // and TTL: reported, the target skipped (its endpoint with it), the rest sync.
    await suite.kube.patch(VIRTUALSERVERS, NS, 'web', { spec: { host: 'app.example.org' } });
    await create(VIRTUALSERVERS, 'web-b', { host: 'app.example.org', virtualServerAddress: '192.0.2.11' }, {}, '192.0.2.99');
    await create(
      VIRTUALSERVERS,
      'bad',
      { host: 'bad.example.org', virtualServerAddress: '192.0.2.12' },
      { [`${A}target`]: 'not_a-target!', [`${A}ttl`]: 'forever' },
      '192.0.2.12',
    );
    await until('after rename and the shared name', records, [
      'app.example.org A 192.0.2.10,192.0.2.11 0',
      'db.example.org A 192.0.2.20 120',
      'www.example.org A 192.0.2.10 0',
    ]);
    for (const bad of ['forever', 'not_a-target!'])
      await waitFor(`${bad} is reported`, () =>
        problems.some((p) => p.message.startsWith('VirtualServer/apps/bad: ') && p.message.includes(bad)) ? true : undefined,
      );

    const ready = await waitFor('a RecordReady Event on the TransportServer', () =>
      eventsFor(suite.api, 'TransportServer', 'db').find((e) => e.reason === 'RecordReady'),
    );
    assert.match(ready.note, /db\.example\.org/);

    await suite.kube.delete(VIRTUALSERVERS, NS, 'web');
    await suite.kube.delete(TRANSPORTSERVERS, NS, 'db');
    await until('deleted', records, ['app.example.org A 192.0.2.11 0']);
    await suite.kube.delete(VIRTUALSERVERS, NS, 'web-b');
    await suite.kube.delete(VIRTUALSERVERS, NS, 'bad');
    await until('all deleted', records, []);
  });
});

describe('f5-transportserver before its CRD exists', () => {
  test('endpoints() fails until the CRD appears, then the source starts by itself', () =>
    assertStartsOnceCrdsExist({
      build: (deps) => f5Source(deps, 'TransportServer'),
      held: 'f5-transportserver/*',
      crds: [loadCrd('f5', 'transportservers.cis.f5.com')],
      write: async (kube) => {
        await kube.create(TRANSPORTSERVERS, {
          metadata: { name: 'ts', namespace: 'default' },
          spec: { ...TS_REQUIRED, host: 'ts.example.org', virtualServerAddress: '192.0.2.30' },
        });
        await kube.patch(TRANSPORTSERVERS, 'default', 'ts', { status: { vsAddress: '192.0.2.30' } }, 'status');
      },
      publishes: 'ts.example.org',
    }));
});
