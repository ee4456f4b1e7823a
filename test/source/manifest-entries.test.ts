/**
 * What the manifest source does with entries that are not plain manifest files: symbolic link
 * loops and aliases, FIFOs, sockets, files over --manifest-max-bytes; and that an unchanged file
 * is neither re-read (same stamp) nor re-parsed (same bytes).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { ConfigError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { ManifestSource } from '../../src/source/manifest/manifest-source.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { loadBalancerService } from '../support/manifests.ts';

const names = (eps: Endpoint[]): string[] => eps.map((e) => `${e.dnsName} ${e.targets.join(',')}`).sort();

/** endpoints(), failing the test instead of hanging when it does not finish within 5 s. */
async function endpointsOf(source: ManifestSource): Promise<Endpoint[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('endpoints() did not finish within 5 s')), 5000);
  });
  try {
    return await Promise.race([source.endpoints(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('ManifestSource: special entries and incremental reads', () => {
  let root: string;
  let counter = 0;
  const newDir = async (): Promise<string> => {
    counter += 1;
    const dir = join(root, `case-${counter}`);
    await mkdir(dir, { recursive: true });
    return dir;
  };
  const source = (dir: string, problems: SourceProblem[] = [], extra: { maxFileBytes?: number } = {}): ManifestSource =>
    new ManifestSource({ dir, logger: silentLogger(), watch: false, onProblem: (p) => problems.push(p), ...extra });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'hostwarden-entries-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('two self-referencing directory links: the walk ends and every file is read once', async () => {
    const dir = await newDir();
    await mkdir(join(dir, 'team'));
    await writeFile(join(dir, 'team', 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.1'));
    await symlink('.', join(dir, 'team', 'again'));
    await symlink('..', join(dir, 'team', 'up'));
    await symlink('.', join(dir, 'self'));
    const problems: SourceProblem[] = [];
    const s = source(dir, problems);
    assert.deepEqual(names(await endpointsOf(s)), ['www.example.org 192.0.2.1']);
    assert.deepEqual(s.lastSync(), { files: 1, reparsed: 1 });
    assert.deepEqual(problems, []);
  });

  test('a link to a directory, inside the tree or outside it, is read once', async () => {
    const dir = await newDir();
    const outside = await newDir();
    await writeFile(join(outside, 'shared.yaml'), loadBalancerService('shared', 'shared.example.org', '192.0.2.2'));
    await mkdir(join(dir, 'real'));
    await writeFile(join(dir, 'real', 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.1'));
    await symlink(join(dir, 'real'), join(dir, 'alias'));
    await symlink(outside, join(dir, 'shared'));
    await symlink(outside, join(dir, 'real', 'shared-again'));
    // A file link to a file that is listed anyway counts once as well.
    await symlink(join(dir, 'real', 'web.yaml'), join(dir, 'web-link.yaml'));
    const s = source(dir);
    assert.deepEqual(names(await endpointsOf(s)), ['shared.example.org 192.0.2.2', 'www.example.org 192.0.2.1']);
    assert.equal(s.lastSync().files, 2);
  });

  test('a link loop named *.yaml is reported by name and does not stop the others', async () => {
    const dir = await newDir();
    await writeFile(join(dir, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.1'));
    await symlink('loop-b.yaml', join(dir, 'loop-a.yaml'));
    await symlink('loop-a.yaml', join(dir, 'loop-b.yaml'));
    await symlink('gone.yaml', join(dir, 'dangling.yaml'));
    const problems: SourceProblem[] = [];
    const s = source(dir, problems);
    assert.deepEqual(names(await endpointsOf(s)), ['www.example.org 192.0.2.1']);
    assert.deepEqual(problems.map((p) => p.file).sort(), [join(dir, 'loop-a.yaml'), join(dir, 'loop-b.yaml')]);
    assert.match(problems[0]?.message ?? '', /loop-[ab]\.yaml: cannot be followed: ELOOP.*; not read$/);
    await endpointsOf(s);
    assert.equal(problems.length, 2, 'reported once, not on every sync');
  });

  test('a FIFO and a socket named *.yaml are never opened: skipped with a warning naming them', async () => {
    const dir = await newDir();
    await writeFile(join(dir, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.1'));
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock.yml'), resolve));
    try {
      const problems: SourceProblem[] = [];
      const s = source(dir, problems);
      assert.deepEqual(names(await endpointsOf(s)), ['www.example.org 192.0.2.1']);
      assert.deepEqual(problems.map((p) => p.message).sort(), [
        `${join(dir, 'pipe.yaml')}: not a regular file (a FIFO); not read`,
        `${join(dir, 'sock.yml')}: not a regular file (a socket); not read`,
      ]);
      await endpointsOf(s);
      assert.equal(problems.length, 2, 'reported once, not on every sync');
      assert.equal(s.problems().length, 2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a file replaced by a FIFO keeps its endpoints until it is a file again or deleted', async () => {
    const dir = await newDir();
    const file = join(dir, 'web.yaml');
    await writeFile(file, loadBalancerService('web', 'www.example.org', '192.0.2.1'));
    const problems: SourceProblem[] = [];
    const s = source(dir, problems);
    assert.deepEqual(names(await endpointsOf(s)), ['www.example.org 192.0.2.1']);
    await unlink(file);
    execFileSync('mkfifo', [file]);
    assert.deepEqual(names(await endpointsOf(s)), ['www.example.org 192.0.2.1']);
    assert.ok(problems.some((p) => /keeping 1 endpoint/.test(p.message)));
    await unlink(file);
    assert.deepEqual(await endpointsOf(s), []);
  });

  test('--manifest-max-bytes: a larger file is named with the flag, keeps its last endpoints, and is read again once it fits', async () => {
    const dir = await newDir();
    const file = join(dir, 'web.yaml');
    const small = loadBalancerService('web', 'www.example.org', '192.0.2.1');
    const limit = small.length + 100;
    await writeFile(file, small);
    await writeFile(join(dir, 'huge.yaml'), `${loadBalancerService('huge', 'huge.example.org', '192.0.2.9')}#${'x'.repeat(limit)}\n`);
    const problems: SourceProblem[] = [];
    const s = source(dir, problems, { maxFileBytes: limit });
    assert.deepEqual(names(await endpointsOf(s)), ['www.example.org 192.0.2.1'], 'a file over the limit from the start is skipped');
    assert.match(problems[0]?.message ?? '', new RegExp(`^${join(dir, 'huge.yaml')}: \\d+ bytes, more than --manifest-max-bytes \\(${limit}\\); not read$`));

    await writeFile(file, loadBalancerService('web', 'www.example.org', '192.0.2.2') + `#${'x'.repeat(limit)}\n`);
    assert.deepEqual(names(await endpointsOf(s)), ['www.example.org 192.0.2.1'], 'grown past the limit: the last good version stands');
    assert.ok(problems.some((p) => p.file === file && /more than --manifest-max-bytes/.test(p.message)));
    assert.ok(problems.some((p) => p.file === file && /keeping 1 endpoint/.test(p.message)));

    await writeFile(file, loadBalancerService('web', 'www.example.org', '192.0.2.3'));
    assert.deepEqual(names(await endpointsOf(s)), ['www.example.org 192.0.2.3']);
  });

  test('--manifest-max-bytes must be a positive whole number', () => {
    for (const bad of [0, -1, 1.5]) {
      assert.throws(
        () => ManifestSource.open({ manifestDir: root, maxFileBytes: bad }, { logger: silentLogger() }),
        (err: unknown) => err instanceof ConfigError && err.flag === '--manifest-max-bytes',
      );
    }
  });

  test('a touched file with the same bytes is read but not parsed again; changed bytes are', async () => {
    const dir = await newDir();
    const file = join(dir, 'web.yaml');
    await writeFile(file, loadBalancerService('web', 'www.example.org', '192.0.2.1'));
    await writeFile(join(dir, 'other.yaml'), loadBalancerService('other', 'other.example.org', '192.0.2.5'));
    // Stamps well in the past, so the cached versions are trusted (not "racily clean").
    const past = new Date(Date.now() - 60_000);
    await utimes(file, past, past);
    await utimes(join(dir, 'other.yaml'), past, past);
    const s = source(dir);
    const first = await endpointsOf(s);
    assert.deepEqual(s.lastSync(), { files: 2, reparsed: 2 });
    await endpointsOf(s);
    assert.deepEqual(s.lastSync(), { files: 2, reparsed: 0 });
    const later = new Date(Date.now() - 30_000);
    await utimes(file, later, later);
    const touched = await endpointsOf(s);
    assert.deepEqual(s.lastSync(), { files: 2, reparsed: 0 });
    assert.equal(
      touched.find((e) => e.dnsName === 'www.example.org'),
      first.find((e) => e.dnsName === 'www.example.org'),
      'the cached endpoint itself',
    );
    await writeFile(file, loadBalancerService('web', 'www.example.org', '192.0.2.7'));
    assert.deepEqual(names(await endpointsOf(s)), ['other.example.org 192.0.2.5', 'www.example.org 192.0.2.7']);
    assert.deepEqual(s.lastSync(), { files: 2, reparsed: 1 });
  });
});
