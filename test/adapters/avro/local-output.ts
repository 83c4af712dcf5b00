// OutputFile on the local disk, for the Avro writer tests.
import { open } from 'node:fs/promises';
import type { OutputFile } from '../../../adapters/avro/container';

export async function localOutput(path: string): Promise<OutputFile> {
  const fh = await open(path, 'w');
  let length = 0;
  return {
    async write(chunk: Uint8Array): Promise<void> {
      await fh.write(chunk);
      length += chunk.length;
    },
    async close(): Promise<{ length: number }> {
      await fh.close();
      return { length };
    },
  };
}
