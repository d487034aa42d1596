// An uploaded roster's bytes in the store, in chunks (docs/design.md, "The
// console's state in the store"): written as the multipart body arrives, one
// chunk of UPLOAD_CHUNK_BYTES at a time, and read back one at a time, so that
// no statement moves the whole file and no step holds the event loop for
// longer than one chunk's copy.
import type { FileHandle } from 'node:fs/promises';
import type { ConsoleStore } from '../store';
import { MultipartError, type FileSink } from './multipart';

/** The size of a stored chunk (the last one of a file is shorter). */
export const UPLOAD_CHUNK_BYTES = 1024 * 1024;

export interface ChunkWriter extends FileSink {
  /** Writes what is left; answers the file's size and how many chunks hold it. */
  finish(): Promise<{ readonly size: number; readonly chunks: number }>;
}

/** A sink that stores a file under `uploadId`; a file over `maxBytes` is refused (MultipartError too_large). */
export function chunkWriter(
  store: Pick<ConsoleStore, 'writeUploadChunk'>,
  uploadId: string,
  maxBytes: number,
  chunkBytes = UPLOAD_CHUNK_BYTES,
): ChunkWriter {
  // One buffer, filled and written again and again: a write has settled before it is filled anew.
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let filled = 0;
  let seq = 0;
  let size = 0;
  const flush = async () => {
    await store.writeUploadChunk(uploadId, seq, buffer.subarray(0, filled));
    seq++;
    filled = 0;
  };
  return {
    async write(bytes) {
      size += bytes.length;
      if (size > maxBytes) throw new MultipartError('too_large', `The file is larger than ${maxBytes} bytes.`);
      for (let at = 0; at < bytes.length;) {
        const copied = bytes.copy(buffer, filled, at);
        filled += copied;
        at += copied;
        if (filled === buffer.length) await flush();
      }
    },
    async finish() {
      if (filled > 0) await flush();
      return { size, chunks: seq };
    },
  };
}

/** Writes an upload's chunks to `file`, one read and one write at a time; throws when one is missing. */
export async function copyUploadTo(
  store: Pick<ConsoleStore, 'readUploadChunk'>,
  upload: { readonly id: string; readonly chunks: number; readonly size: number },
  file: FileHandle,
): Promise<void> {
  let size = 0;
  for (let seq = 0; seq < upload.chunks; seq++) {
    const chunk = await store.readUploadChunk(upload.id, seq);
    if (chunk === null) throw new Error(`chunk ${seq} of upload ${upload.id} is missing`);
    await file.write(chunk);
    size += chunk.length;
  }
  if (size !== upload.size) throw new Error(`upload ${upload.id} holds ${size} bytes, not ${upload.size}`);
}
