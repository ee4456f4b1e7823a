/**
 * `npm run build`: compiles src/ to dist/ (tsconfig.build.json), which bin/hostwarden then runs
 * with plain node instead of tsx — about 90 MB less RSS, most of it tsx's copies of client-node's
 * sources. Optional: without dist/, or when any file under src/ is newer than the build,
 * bin/hostwarden runs the sources through tsx as before.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
// `--out DIR` builds elsewhere (a test runs the compiled program without touching dist/). It must
// lie inside the repository, so that the compiled files find node_modules.
const outArg = process.argv.indexOf('--out');
const dist = outArg >= 0 ? `${resolve(process.argv[outArg + 1] ?? 'dist')}/` : fileURLToPath(new URL('../dist/', import.meta.url));
// Taken before compiling, so a source edited during the build makes the result stale.
const startedAt = Date.now();
rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.build.json', '--outDir', dist],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) {
  // Never leave a half-checked build behind for bin/hostwarden to prefer.
  rmSync(dist, { recursive: true, force: true });
  process.stderr.write('build failed; bin/hostwarden keeps running the sources through tsx\n');
  process.exit(1);
}
// The DNS worker processes are forked with tsx from the path the source names (worker-main.ts). The
// shim imports a copy of the compiled worker under another name: tsx would map './worker-main.js'
// back to the shim itself.
copyFileSync(`${dist}dns/server/worker-main.js`, `${dist}dns/server/worker-main-compiled.js`);
writeFileSync(`${dist}dns/server/worker-main.ts`, "import './worker-main-compiled.js';\n");
// client-node's package root loads its whole generated API (2,500 modules, about 60 MB of RSS);
// a bundle of KubeConfig holds only what KubeConfig reaches. Its CommonJS dependencies call
// require(), which an ES module lacks, hence the banner.
await build({
  entryPoints: [fileURLToPath(new URL('../src/kube/kubeconfig-module.ts', import.meta.url))],
  outfile: `${dist}kube/kubeconfig-module.js`,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // V8 keeps a module's source text for lazy compilation: minified and ASCII-only, it is stored
  // one byte per character and is about a third of the size (a single non-ASCII character in a
  // comment made V8 keep all 1.8 MB as two-byte text).
  minify: true,
  keepNames: true,
  charset: 'ascii',
  logLevel: 'error',
  banner: { js: "import { createRequire as hostwardenCreateRequire } from 'node:module'; const require = hostwardenCreateRequire(import.meta.url);" },
});
// The web console's page is not TypeScript: tsc leaves it behind, and console/serve.js reads it
// from beside itself (the container image ships dist/ only).
cpSync(fileURLToPath(new URL('../src/console/assets/', import.meta.url)), `${dist}console/assets/`, { recursive: true });
writeFileSync(`${dist}.build.json`, `${JSON.stringify({ startedAt })}\n`);
process.stdout.write(`built ${dist.slice(root.length) || dist} in ${Math.round((Date.now() - startedAt) / 1000)} s\n`);
