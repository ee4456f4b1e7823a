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
