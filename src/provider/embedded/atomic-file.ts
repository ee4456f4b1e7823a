/**
 * Crash-safe file replacement: the new bytes go to a temporary file in the same directory, are
 * fsynced, renamed over the target and the directory is fsynced, so after a crash (kill -9 or power
 * loss) the target holds either the old or the new content in full, never a mixture.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { HostwardenError } from '../../errors.ts';

/** Temporary files are hidden and carry a marker so start-up can find the ones a crash left. */
const TEMP_PATTERN = /^\..+\.tmp-\d+-[0-9a-f]{12}$/;

/** A failed replacement; `renamed` is true when the new content is already in place but not yet durable. */
export class AtomicWriteError extends HostwardenError {
  readonly path: string;
  readonly renamed: boolean;
  constructor(path: string, renamed: boolean, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('FILE_WRITE_FAILED', `cannot write ${path}${renamed ? ' durably' : ''}: ${reason}`, { transient: true, cause });
    this.path = path;
    this.renamed = renamed;
  }
}

export function tempPathFor(target: string, pid: number = process.pid): string {
  return join(dirname(target), `.${basename(target)}.tmp-${pid}-${randomBytes(6).toString('hex')}`);
}

/** Replaces `target` with `data`; resolves only once the new content survives a crash. */
export async function writeFileAtomic(target: string, data: string): Promise<void> {
  const temp = tempPathFor(target);
  try {
    const file = await open(temp, 'wx', 0o644);
    try {
      await file.writeFile(data, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw new AtomicWriteError(target, false, err);
  }
  try {
    await syncDirectory(dirname(target));
  } catch (err) {
    throw new AtomicWriteError(target, true, err);
  }
}

/** Makes a rename or unlink in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Deletes temporary files that a crashed writer left behind; returns their names. */
export async function removeStaleTempFiles(dir: string): Promise<string[]> {
  const stale = (await readdir(dir)).filter((name) => TEMP_PATTERN.test(name));
  for (const name of stale) await unlink(join(dir, name)).catch(() => undefined);
  if (stale.length > 0) await syncDirectory(dir);
  return stale;
}
