// The unit project's global set-up: the footer threads' body bundled for this run
// (dev/thread-bundle.ts), so footer threads started from the sources load one file.
import { useSourceThreadBundle } from '../../dev/thread-bundle';

export default async function threadBundleSetup(): Promise<void> {
  await useSourceThreadBundle();
}
