/**
 * Reads one manifest file without ever blocking on it and without reading more than the size
 * limit. The caller has already checked with stat() that the path is a regular file; opening with
 * O_NONBLOCK covers the file being replaced by a FIFO in between (a blocking open of a FIFO waits
 * for a writer forever, holding a thread of libuv's small pool), and fstat() on the open handle
 * settles what was opened.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { kindOf } from './walk.ts';

export type ReadOutcome = { kind: 'text'; text: string } | { kind: 'not-regular'; reason: string } | { kind: 'too-large'; size: number };

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Throws the fs error when the file cannot be opened or read (gone, permissions, I/O). */
export async function readManifestFile(path: string, maxBytes: number): Promise<ReadOutcome> {
  const handle = await open(path, FLAGS);
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { kind: 'not-regular', reason: `not a regular file (${kindOf(st)})` };
    if (st.size > maxBytes) return { kind: 'too-large', size: st.size };
    // Room for one byte more than fstat() saw, so a file that grew since is noticed; reading stops
    // one byte past the limit.
    let buffer = Buffer.allocUnsafe(Math.min(st.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) return { kind: 'too-large', size: length };
    }
    return { kind: 'text', text: buffer.toString('utf8', 0, length) };
  } finally {
    await handle.close();
  }
}
