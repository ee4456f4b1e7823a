/** Process glue for bin/hostwarden: hands the real process to main() and exits with its code. */
import { setFlagsFromString } from 'node:v8';
import { main } from './main.ts';

const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  onSignal: (signal, handler) => process.on(signal, handler),
  setV8Option: (option) => setFlagsFromString(option),
  nodeVersion: process.version,
});
process.exitCode = code;
// Whatever still runs once main() has returned is work a stop abandoned (a synchronisation waiting
// on something that never answers); it must not keep the process alive after SIGTERM.
setTimeout(() => process.exit(code), 250).unref();
