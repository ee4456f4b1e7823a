import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { endpointToJSON } from '../../src/endpoint/endpoint.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { SourceError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import type { Logger } from '../../src/log.ts';
import { ManifestSource } from '../../src/source/manifest/manifest-source.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { loadBalancerService } from '../support/manifests.ts';

const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples');
const A = 'external-dns.alpha.kubernetes.io/';

interface LogLine {
  level: number;
  msg: string;
  file?: string;
  line?: number;
  kind?: string;
  name?: string;
}

function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l) as LogLine);
      done();
    },
  });
  return { logger: createLogger('debug', 'json', stream), lines };
}

function summary(eps: Endpoint[]): string[] {
  return eps.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')}`).sort();
}

/** Polls `check` every 25 ms for at most 3 s. */
async function waitFor(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 3000;
  for (let i = 0; i < 200 && Date.now() < deadline; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('ManifestSource', () => {
  let root: string;
  let counter = 0;
  const newDir = async (): Promise<string> => {
    counter += 1;
    const dir = join(root, `case-${counter}`);
    await mkdir(dir, { recursive: true });
    return dir;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'hostwarden-manifest-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('reads the examples', async () => {
    const source = new ManifestSource({ dir: EXAMPLES, logger: capturingLogger().logger, watch: false });
    const eps = await source.endpoints();
    assert.deepEqual(summary(eps), [
      'api.example.org CNAME lb.example.net',
      'app.example.org CNAME lb.example.net',
      'db.example.org A 192.0.2.20',
      'mail.example.org A 192.0.2.25',
      'note.example.org TXT managed by hostwarden',
      'shop.example.org MX 10 mail.example.org',
      'v6.example.org AAAA 2001:db8::20',
      'www.example.org A 192.0.2.10',
    ]);
    const www = eps.find((e) => e.dnsName === 'www.example.org');
    assert.deepEqual(www && endpointToJSON(www), {
      dnsName: 'www.example.org',
      targets: ['192.0.2.10'],
      recordType: 'A',
      recordTTL: 300,
      labels: { resource: 'service/default/web' },
    });
    assert.deepEqual(source.problems(), []);
  });

  test('a malformed file is reported with file and line; every other file is still processed', async () => {
    const dir = await newDir();
    await writeFile(join(dir, 'good.yaml'), loadBalancerService('good', 'good.example.org', '192.0.2.1'));
    await writeFile(join(dir, 'broken.yaml'), 'apiVersion: v1\nkind: Service\nmetadata:\n  name: [unclosed\n  namespace: x\n');
    await writeFile(join(dir, 'z-good.yml'), loadBalancerService('other', 'other.example.org', '192.0.2.2'));
    const { logger, lines } = capturingLogger();
    const problems: SourceProblem[] = [];
    const source = new ManifestSource({ dir, logger, watch: false, onProblem: (p) => problems.push(p) });
    assert.deepEqual(summary(await source.endpoints()), ['good.example.org A 192.0.2.1', 'other.example.org A 192.0.2.2']);
    const brokenFile = join(dir, 'broken.yaml');
    assert.equal(problems.length, 1);
    assert.equal(problems[0]?.file, brokenFile);
    assert.ok((problems[0]?.line ?? 0) >= 4, `line ${problems[0]?.line}`);
    assert.match(problems[0]?.message ?? '', /broken\.yaml:\d+/);
    const warn = lines.find((l) => l.level === 40 && l.file === brokenFile);
    assert.ok(warn, 'a warning with the file field');
    assert.equal(typeof warn.line, 'number');
  });

  test('one bad document in a multi-document file does not hide the others', async () => {
    const dir = await newDir();
    await writeFile(
      join(dir, 'multi.yaml'),
      `${loadBalancerService('a', 'a.example.org', '192.0.2.1')}---\nfoo: [1, 2\nbar: x\n---\n${loadBalancerService('b', 'b.example.org', '192.0.2.2')}`,
    );
    const problems: SourceProblem[] = [];
    const source = new ManifestSource({ dir, logger: capturingLogger().logger, watch: false, onProblem: (p) => problems.push(p) });
    assert.deepEqual(summary(await source.endpoints()), ['a.example.org A 192.0.2.1', 'b.example.org A 192.0.2.2']);
    assert.equal(problems.length, 1);
  });

  test('a file that becomes malformed keeps its last endpoints until fixed or deleted', async () => {
    const dir = await newDir();
    const file = join(dir, 'svc.yaml');
    await writeFile(file, loadBalancerService('web', 'keep.example.org', '192.0.2.5'));
    const problems: SourceProblem[] = [];
    const source = new ManifestSource({ dir, logger: capturingLogger().logger, watch: false, onProblem: (p) => problems.push(p) });
    assert.deepEqual(summary(await source.endpoints()), ['keep.example.org A 192.0.2.5']);
    await writeFile(file, `${loadBalancerService('web', 'keep.example.org', '192.0.2.6')}  bad: [\n`);
    assert.deepEqual(summary(await source.endpoints()), ['keep.example.org A 192.0.2.5']);
    assert.ok(problems.some((p) => p.file === file && p.line !== undefined));
    assert.ok(problems.some((p) => /keeping 1 endpoint/.test(p.message)));
    await writeFile(file, loadBalancerService('web', 'keep.example.org', '192.0.2.7'));
    assert.deepEqual(summary(await source.endpoints()), ['keep.example.org A 192.0.2.7']);
    await unlink(file);
    assert.deepEqual(await source.endpoints(), []);
  });

  test('an object a template fails on keeps its endpoints of the last version, or is held when it has none', async () => {
    const dir = await newDir();
    const file = join(dir, 'svc.yaml');
    const labelled = (name: string, team: string | undefined, ip: string): string =>
      loadBalancerService(name, `${name}.example.org`, ip).replace(
        '  namespace: default\n',
        `  namespace: default\n${team === undefined ? '' : `  labels:\n    team: ${team}\n`}`,
      );
    const options = { fqdnTemplate: ['{{ .Labels.team | toLower }}.example.org'], combineFqdnAnnotation: true };
    await writeFile(file, `${labelled('web', 'Shop', '192.0.2.5')}---\n${labelled('api', 'Api', '192.0.2.6')}`);
    const problems: SourceProblem[] = [];
    const open = (): ManifestSource =>
      ManifestSource.open({ manifestDir: dir, watch: false, ...options }, { logger: capturingLogger().logger, onProblem: (p) => problems.push(p) });
    const source = open();
    assert.deepEqual(summary(await source.endpoints()), ['api.example.org A 192.0.2.6', 'shop.example.org A 192.0.2.5', 'web.example.org A 192.0.2.5']);
    // web loses its label (and changes its address): the template fails on it, its last endpoints stay.
    await writeFile(file, `${labelled('web', undefined, '192.0.2.9')}---\n${labelled('api', 'Api', '192.0.2.7')}`);
    assert.deepEqual(summary(await source.endpoints()), ['api.example.org A 192.0.2.7', 'shop.example.org A 192.0.2.5', 'web.example.org A 192.0.2.5']);
    assert.deepEqual([...source.heldResources()], []);
    assert.ok(
      problems.some((p) => /failed to apply template on Service default\/web: template: endpoint:1:18: .*records are kept as they are/.test(p.message)),
    );
    // A source starting now has no last version: web is held instead.
    const fresh = open();
    assert.deepEqual(summary(await fresh.endpoints()), ['api.example.org A 192.0.2.7']);
    assert.deepEqual([...fresh.heldResources()], ['service/default/web']);
    // An unrelated edit of the file keeps web held; fixing web releases it.
    await writeFile(file, `${labelled('web', undefined, '192.0.2.9')}---\n${labelled('api', 'Api', '192.0.2.8')}`);
    assert.deepEqual(summary(await fresh.endpoints()), ['api.example.org A 192.0.2.8']);
    assert.deepEqual([...fresh.heldResources()], ['service/default/web']);
    await writeFile(file, `${labelled('web', 'Web', '192.0.2.9')}---\n${labelled('api', 'Api', '192.0.2.8')}`);
    assert.deepEqual(summary(await fresh.endpoints()), ['api.example.org A 192.0.2.8', 'web.example.org A 192.0.2.9']);
    assert.deepEqual([...fresh.heldResources()], []);
  });

  test('an invalid hostname annotation is skipped with a warning naming the object', async () => {
    const dir = await newDir();
    await writeFile(join(dir, 'svc.yaml'), loadBalancerService('web', 'bad_name!.example.org,ok.example.org', '192.0.2.3'));
    const { logger, lines } = capturingLogger();
    const problems: SourceProblem[] = [];
    const source = new ManifestSource({ dir, logger, watch: false, onProblem: (p) => problems.push(p) });
    assert.deepEqual(summary(await source.endpoints()), ['ok.example.org A 192.0.2.3']);
    assert.equal(problems.length, 1);
    assert.match(problems[0]?.message ?? '', /Service\/default\/web \(.*svc\.yaml:1\)/);
    const warn = lines.find((l) => l.level === 40 && l.kind === 'Service');
    assert.ok(warn);
    assert.equal(warn.name, 'web');
    assert.match(warn.msg, /bad_name!/);
    // Cached: a second list re-reads nothing and so warns no more.
    await source.endpoints();
    assert.equal(problems.length, 1);
    assert.equal(source.problems().length, 1);
  });

  test('kind: List, API lists, JSON files, recursive directories and unknown kinds', async () => {
    const dir = await newDir();
    await mkdir(join(dir, 'team', 'nested'), { recursive: true });
    await mkdir(join(dir, '..data'), { recursive: true });
    await writeFile(
      join(dir, 'list.yaml'),
      `apiVersion: v1\nkind: List\nitems:\n${loadBalancerService('l1', 'l1.example.org', '192.0.2.11')
        .replace(/^/gm, '    ')
        .replace(/^ {4}apiVersion/, '  - apiVersion')}`,
    );
    await writeFile(
      join(dir, 'team', 'nested', 'svclist.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ServiceList',
        items: [
          {
            metadata: { name: 'j1', annotations: { [`${A}hostname`]: 'j1.example.org' } },
            spec: { type: 'LoadBalancer' },
            status: { loadBalancer: { ingress: [{ ip: '192.0.2.12' }] } },
          },
        ],
      }),
    );
    await writeFile(join(dir, 'team', 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: b\n');
    await writeFile(join(dir, 'team', 'notes.txt'), loadBalancerService('txt', 'ignored.example.org', '192.0.2.99'));
    await writeFile(join(dir, '..data', 'dup.yaml'), loadBalancerService('dup', 'dup.example.org', '192.0.2.98'));
    const problems: SourceProblem[] = [];
    const source = new ManifestSource({ dir, logger: capturingLogger().logger, watch: false, onProblem: (p) => problems.push(p) });
    assert.deepEqual(summary(await source.endpoints()), ['j1.example.org A 192.0.2.12', 'l1.example.org A 192.0.2.11']);
    assert.deepEqual(problems, []);
  });

  test('only changed files are parsed again', async () => {
    const dir = await newDir();
    const count = 500;
    for (let i = 0; i < count; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) =>
          writeFile(join(dir, `svc-${i + j}.yaml`), loadBalancerService(`s${i + j}`, `s${i + j}.example.org`, '192.0.2.1')),
        ),
      );
    }
    const source = new ManifestSource({ dir, logger: capturingLogger().logger, watch: false });
    assert.equal((await source.endpoints()).length, count);
    assert.deepEqual(source.lastSync(), { files: count, reparsed: count });
    assert.equal((await source.endpoints()).length, count);
    assert.deepEqual(source.lastSync(), { files: count, reparsed: 0 });
    await writeFile(join(dir, 'svc-7.yaml'), loadBalancerService('s7', 's7.example.org', '192.0.2.77'));
    const eps = await source.endpoints();
    assert.deepEqual(source.lastSync(), { files: count, reparsed: 1 });
    assert.deepEqual(eps.find((e) => e.dnsName === 's7.example.org')?.targets, ['192.0.2.77']);
    // Unchanged files hand out the very endpoints they cached, read-only: no copy per sync.
    const again = await source.endpoints();
    assert.equal(
      again.find((e) => e.dnsName === 's8.example.org'),
      eps.find((e) => e.dnsName === 's8.example.org'),
    );
    assert.throws(() => eps[0]?.targets.push('192.0.2.250'), TypeError);
  });

  test('a missing directory is a SourceError', async () => {
    const source = new ManifestSource({ dir: join(root, 'does-not-exist'), logger: capturingLogger().logger, watch: false });
    await assert.rejects(source.endpoints(), (err: unknown) => err instanceof SourceError);
  });

  for (const poll of [false, true]) {
    test(`editing, adding and deleting files fires the handler and changes endpoints (${poll ? 'polling' : 'fs.watch'})`, async () => {
      const dir = await newDir();
      await mkdir(join(dir, 'sub'));
      const file = join(dir, 'sub', 'svc.yaml');
      await writeFile(file, loadBalancerService('web', 'edit.example.org', '192.0.2.1'));
      const source = new ManifestSource({ dir, logger: capturingLogger().logger, watch: true, poll });
      let events = 0;
      const unsubscribe = source.addEventHandler(() => {
        events += 1;
      });
      try {
        assert.deepEqual(summary(await source.endpoints()), ['edit.example.org A 192.0.2.1']);
        // The polling watcher takes its baseline asynchronously; give it one interval.
        await new Promise((resolve) => setTimeout(resolve, poll ? 300 : 50));

        await writeFile(file, loadBalancerService('web', 'edit.example.org', '192.0.2.2'));
        await waitFor('an event after editing', () => events >= 1);
        assert.deepEqual(summary(await source.endpoints()), ['edit.example.org A 192.0.2.2']);

        const before = events;
        await writeFile(join(dir, 'new.yaml'), loadBalancerService('new', 'new.example.org', '192.0.2.3'));
        await waitFor('an event after adding', () => events > before);
        await waitFor('the new endpoint', async () => summary(await source.endpoints()).includes('new.example.org A 192.0.2.3'));

        const beforeDelete = events;
        await unlink(file);
        await waitFor('an event after deleting', () => events > beforeDelete);
        assert.deepEqual(summary(await source.endpoints()), ['new.example.org A 192.0.2.3']);
      } finally {
        unsubscribe();
        await source.close();
      }
    });
  }

  test('close stops events', async () => {
    const dir = await newDir();
    const source = new ManifestSource({ dir, logger: capturingLogger().logger, watch: true });
    let events = 0;
    source.addEventHandler(() => {
      events += 1;
    });
    await source.close();
    await writeFile(join(dir, 'late.yaml'), loadBalancerService('late', 'late.example.org', '192.0.2.4'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(events, 0);
  });
});
