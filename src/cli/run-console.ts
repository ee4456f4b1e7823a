/**
 * `run`'s web console (docs/console.md): read-only pages under /ui/ on the --metrics-address
 * listener, or on a listener of its own (--ui-address); --ui=false turns it off. Fed by the sync
 * loop's own report after every sync, so it shows what the loop and `explain` decide.
 */
import { createServer } from 'node:http';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { Config } from '../config/config.ts';
import { parseListenAddress } from '../config/config.ts';
import { ConsoleHistory } from '../console/history.ts';
import { ConsoleServer } from '../console/serve.ts';
import { ConsoleState } from '../console/state.ts';
import type { Controller, SyncReport } from '../controller/controller.ts';
import { packageVersion } from '../http/build-info.ts';
import { closeServer, listen } from '../http/listen.ts';
import type { Logger } from '../log.ts';

export interface RunConsole {
  server: ConsoleServer;
  /** The sync loop's hooks. */
  planned(report: SyncReport): void;
  failed(err: unknown): void;
  /** Binds the state to the controller (its clock) once it exists. */
  attach(controller: Controller, applying: () => boolean): void;
}

/** Checks the flags before anything starts; undefined with --ui=false or --once. */
export function consoleOf(cfg: Config, deps: { metrics: MetricsRegistry; logger: Logger; zones: () => string[]; dns: boolean }): RunConsole | undefined {
  if (!cfg.flags.bool('ui') || cfg.once) return undefined;
  const address = cfg.flags.str('ui-address');
  if (address !== '') parseListenAddress(address, '--ui-address');
  // Served beside /metrics: with that listener off (and no listener of its own) there is none.
  else if (cfg.metricsAddress === '') return undefined;
  const history = new ConsoleHistory(deps.metrics, deps.dns);
  const idle = { lastAttemptAt: 0, lastSuccessAt: 0, consecutiveFailures: 0, nextSyncAt: 0 };
  let applying: () => boolean = () => true;
  let attached: Controller | undefined;
  const info = {
    ownerId: cfg.txtOwnerId,
    provider: cfg.provider,
    sources: [...cfg.sources],
    policy: cfg.policy,
    registry: cfg.registry,
    dryRun: cfg.dryRun,
    version: packageVersion(),
  };
  // The controller's own fields, read at each request.
  const state = new ConsoleState(
    info,
    () => attached ?? idle,
    () => applying(),
    deps.zones,
  );
  const server = new ConsoleServer({ state, history, logger: deps.logger.child({ component: 'console' }) });
  return {
    server,
    planned: (report) => {
      state.planned(report);
      history.count('syncs');
      if (report.applied) history.count('changes', report.changes.create.length + report.changes.updateNew.length + report.changes.delete.length);
      server.changed();
    },
    failed: (err) => {
      state.failed(err);
      history.count('errors');
      server.changed();
    },
    attach: (controller, canApply) => {
      attached = controller;
      applying = canApply;
    },
  };
}

/** The console's own listener (--ui-address); returns its closer. */
export async function serveConsoleAlone(cfg: Config, c: RunConsole, logger: Logger): Promise<() => Promise<void>> {
  const { host, port } = parseListenAddress(cfg.flags.str('ui-address'), '--ui-address');
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (!c.server.handle(path, req, res)) res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
  });
  const address = await listen(server, host, port);
  logger.info({ address: `${address.address}:${address.port}` }, 'serving the web console on /ui/');
  return async () => {
    c.server.close();
    await closeServer(server);
  };
}
