/**
 * `hostwarden run` as `npm start` runs it (manifest source, embedded provider), on a copy of
 * examples/ and a data directory of its own, with a zone that already holds a record of another
 * owner (cluster-b's api.example.org, blocking the example Ingress's host) and an unowned one:
 * what the web console's browser test looks at.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.ts';
import { startHostwarden } from './hostwarden-process.ts';
import type { RunningHostwarden } from './hostwarden-process.ts';

export const ZONE = 'example.org';
export const FOREIGN_OWNER = 'cluster-b';
/** Asked for by examples/ingress.yaml, held by cluster-b. */
export const BLOCKED_NAME = `api.${ZONE}`;

/** As external-dns ≥ 0.18 leaves a CNAME it owns (the `cname-` ownership record), plus one record nobody owns. */
export const SEED_ZONE = [
  `${ZONE}. 300 IN SOA ns1.${ZONE}. hostmaster.${ZONE}. 7 3600 600 86400 300`,
  `${ZONE}. 300 IN NS ns1.${ZONE}.`,
  `${BLOCKED_NAME}. 300 IN CNAME lb.team-b.example.net.`,
  `cname-${BLOCKED_NAME}. 300 IN TXT "heritage=external-dns,external-dns/owner=${FOREIGN_OWNER},external-dns/resource=ingress/team-b/api"`,
  `legacy.${ZONE}. 3600 IN A 192.0.2.99`,
  '',
].join('\n');

export interface ConsoleRun {
  hw: RunningHostwarden;
  /** http://127.0.0.1:<metrics port>/ui/ */
  url: string;
  /** The copy of examples/ the manifest source reads; tests edit it. */
  manifestsDir: string;
  stop(): Promise<void>;
}

export async function startConsoleRun(extraArgs: readonly string[] = []): Promise<ConsoleRun> {
  const dir = await mkdtemp(join(tmpdir(), 'hw-console-'));
  const manifestsDir = join(dir, 'manifests');
  const dataDir = join(dir, 'data');
  await mkdir(manifestsDir);
  await mkdir(dataDir);
  const examples = join(REPO_ROOT, 'examples');
  for (const file of await readdir(examples)) if (file.endsWith('.yaml')) await copyFile(join(examples, file), join(manifestsDir, file));
  await writeFile(join(dataDir, `${ZONE}.zone`), SEED_ZONE);
  let hw: RunningHostwarden;
  try {
    hw = await startHostwarden([
      '--manifests-dir',
      manifestsDir,
      '--embedded-zone',
      ZONE,
      '--embedded-data-dir',
      dataDir,
      '--min-event-sync-interval',
      '250ms',
      ...extraArgs,
    ]);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    hw,
    url: `http://127.0.0.1:${hw.metricsPort}/ui/`,
    manifestsDir,
    stop: async () => {
      await hw.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
