// Footer threads for bench/convert's transport A/B (bench/convert/thread-transports.ts): the bench's
// build of the thread body (built once per test file), each thread's transport set through its
// environment (HIM_THREAD_HTTP).
import { withoutTsx } from '../../adapters/storage/object-read/thread-start';
import type { ThreadStart } from '../../adapters/storage/object-read/thread-start';
import { buildTransportAbBundle } from '../../bench/convert/transport-ab-bundle';
import type { ThreadHttpTransport } from '../../bench/convert/thread-transports';

let bundle: Promise<string> | undefined;

export async function transportAbStart(via: ThreadHttpTransport): Promise<ThreadStart> {
  bundle ??= buildTransportAbBundle();
  return { file: await bundle, options: { execArgv: withoutTsx(process.execArgv), env: { ...process.env, HIM_THREAD_HTTP: via } } };
}
