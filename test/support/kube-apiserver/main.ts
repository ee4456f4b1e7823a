/**
 * The test API server as a child process, for tests and benchmarks that must not share a process
 * (or its memory figures) with it. Prints one JSON line `{"url":…,"kubeconfig":…}` once listening;
 * exits when its stdin closes (the parent went away) or on SIGTERM.
 *
 * Usage: node --import tsx test/support/kube-apiserver/main.ts <dir> [bookmarkIntervalMs]
 */
import { startTestApiServer } from './server.ts';

async function main(): Promise<void> {
  const [dir, bookmarks] = process.argv.slice(2);
  if (dir === undefined) throw new Error('usage: main.ts <dir> [bookmarkIntervalMs]');
  const api = await startTestApiServer({ bookmarkIntervalMs: bookmarks === undefined ? undefined : Number(bookmarks) });
  const kubeconfig = await api.writeKubeconfig(dir);
  const stop = (): void => {
    void api.stop().finally(() => process.exit(0));
  };
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
  process.stdout.write(`${JSON.stringify({ url: api.url, kubeconfig })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
