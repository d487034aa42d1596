// An upload's file in the store's chunks (src/console/upload-chunks.ts): cut
// into chunks of the given size whatever pieces it arrives in, refused past
// its bound, and read back whole, or not at all when a chunk is missing.
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chunkWriter, copyUploadTo } from '../../src/console/upload-chunks';

function memoryChunks() {
  const chunks = new Map<number, Buffer>();
  return {
    chunks,
    writeUploadChunk: (_id: string, seq: number, data: Buffer) => {
      chunks.set(seq, Buffer.from(data));
      return Promise.resolve();
    },
    readUploadChunk: (_id: string, seq: number) => Promise.resolve(chunks.get(seq) ?? null),
  };
}

describe('upload chunks', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sns-chunks-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const file = Buffer.from(Array.from({ length: 2500 }, (_, i) => i % 251));

  it('cuts a file into chunks of the size given, and copies it back whole', async () => {
    const store = memoryChunks();
    const writer = chunkWriter(store, 'u', 10_000, 1000);
    for (let at = 0; at < file.length; at += 333) await writer.write(file.subarray(at, at + 333));
    expect(await writer.finish()).toEqual({ size: 2500, chunks: 3 });
    expect([...store.chunks.values()].map((c) => c.length)).toEqual([1000, 1000, 500]);
    const handle = await open(path.join(dir, 'copy'), 'wx');
    await copyUploadTo(store, { id: 'u', chunks: 3, size: 2500 }, handle);
    await handle.close();
    expect((await readFile(path.join(dir, 'copy'))).equals(file)).toBe(true);
  });

  it('refuses a file past its bound, and a copy with a chunk missing', async () => {
    const store = memoryChunks();
    const writer = chunkWriter(store, 'u', 2000, 1000);
    await expect(writer.write(file)).rejects.toMatchObject({ kind: 'too_large' });
    const ok = chunkWriter(store, 'v', 10_000, 1000);
    await ok.write(file);
    await ok.finish();
    store.chunks.delete(1);
    const handle = await open(path.join(dir, 'copy'), 'wx');
    await expect(copyUploadTo(store, { id: 'v', chunks: 3, size: 2500 }, handle)).rejects.toThrow(/chunk 1/);
    await handle.close();
  });
});
