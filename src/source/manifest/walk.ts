/**
 * Lists the manifest files under a directory without trusting what is in it. Node's recursive
 * readdir follows directory symlinks blindly: two self-referencing links make the listing grow
 * exponentially, and one makes every file appear dozens of times. This walk follows links (ConfigMap
 * volumes are made of them) but enters each real directory once and lists each real file once, so
 * it ends on any tree. It opens no file: manifest-named entries that are not regular files (FIFOs,
 * sockets, devices) or links that cannot be followed are listed too, and the reader refuses them
 * by name, so a file replaced by one of them keeps its records like any unreadable file.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import type { Dirent, Stats } from 'node:fs';
import { extname, join } from 'node:path';

export const MANIFEST_EXTENSIONS: readonly string[] = ['.yaml', '.yml', '.json'];

export interface WalkResult {
  /** Manifest-named entries that are not directories, by the path they were found at, sorted; each real file once. */
  files: string[];
  /** Directories not entered again because another path already led there (loops, aliases). */
  revisits: string[];
}

interface Pending {
  path: string;
  real: string;
}

/**
 * Walks `dir`. Throws (with the fs error) when the directory itself or one of its subdirectories
 * cannot be listed: a partial listing would look like deleted files and delete their records.
 */
export async function walkManifests(dir: string): Promise<WalkResult> {
  const root = await realpath(dir);
  const entered = new Set<string>([root]);
  const seenFiles = new Set<string>();
  const result: WalkResult = { files: [], revisits: [] };
  // Breadth first, names sorted: which of two paths to one real file is kept does not vary.
  const queue: Pending[] = [{ path: dir, real: root }];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    let entries: Dirent[];
    try {
      entries = await readdir(next.path, { withFileTypes: true });
    } catch (err) {
      // A subdirectory removed since its parent was listed is gone, like a deleted file.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && next.real !== root) continue;
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      // Dot-entries are skipped: ConfigMap volumes keep a second copy of every file under `..data`.
      if (entry.name.startsWith('.')) continue;
      await visit(entry, next, { queue, entered, seenFiles, result });
    }
  }
  result.files.sort();
  return result;
}

async function visit(
  entry: Dirent,
  parent: Pending,
  state: { queue: Pending[]; entered: Set<string>; seenFiles: Set<string>; result: WalkResult },
): Promise<void> {
  const path = join(parent.path, entry.name);
  const manifestNamed = isManifestName(entry.name);
  const enter = (real: string): void => {
    if (state.entered.has(real)) state.result.revisits.push(path);
    else {
      state.entered.add(real);
      state.queue.push({ path, real });
    }
  };
  const addFile = (real: string): void => {
    if (state.seenFiles.has(real)) return;
    state.seenFiles.add(real);
    state.result.files.push(path);
  };
  if (entry.isDirectory()) return enter(join(parent.real, entry.name));
  if (!entry.isSymbolicLink()) {
    if (manifestNamed) addFile(join(parent.real, entry.name));
    return;
  }
  let target: Stats;
  let real: string;
  try {
    target = await stat(path);
    real = await realpath(path);
  } catch (err) {
    // A dangling link is a file that is gone (a ConfigMap update in progress, say); a loop or a
    // forbidden target is listed for the reader to report.
    if (manifestNamed && (err as NodeJS.ErrnoException).code !== 'ENOENT') addFile(`unfollowable:${path}`);
    return;
  }
  if (target.isDirectory()) return enter(real);
  if (manifestNamed) addFile(real);
}

export function isManifestName(name: string): boolean {
  return MANIFEST_EXTENSIONS.includes(extname(name).toLowerCase());
}

/** What a non-regular entry is, for the warning. */
export function kindOf(entry: Dirent | Stats): string {
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isSocket()) return 'a socket';
  if (entry.isCharacterDevice()) return 'a character device';
  if (entry.isBlockDevice()) return 'a block device';
  if (entry.isDirectory()) return 'a directory';
  return 'of an unknown type';
}
