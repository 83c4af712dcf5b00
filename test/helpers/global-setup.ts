// Integration tests run against the real local stack. Bring it up (idempotent; skipped when
// dev/test.sh already did, HIM_TEST_STACK_UP=1) and export its connection settings to the test
// workers. Never skips: a component that cannot start fails the run. HIM_TEST_COMPONENTS=a,b limits which components
// are brought up (for working on one piece; CI brings up everything).
import { createContext } from '../../dev/stack/manifest';
import { up } from '../../dev/stack/stack';
import { stackEnv } from '../../dev/stack/env';
import { useSourceThreadBundle } from '../../dev/thread-bundle';

export default async function globalSetup(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const ctx = createContext();
  const only = process.env.HIM_TEST_COMPONENTS?.split(',').filter(Boolean);
  // dev/test.sh brought the whole stack up (and health-checked it) just before and runs two jest
  // lanes at once: a second `up` here would only race the first lane's suites (an `up` restarts a
  // component whose health check times out, which under the other lane's load it may).
  if (process.env.HIM_TEST_STACK_UP !== '1') await up(ctx, only);
  Object.assign(process.env, stackEnv(ctx));
  // In-process GSSAPI calls (the Kerberos adapter tests) read KRB5_CONFIG from the real environment;
  // test files only see a copy of process.env, so it is set here, before they start.
  process.env.KRB5_CONFIG ??= process.env.HIM_KRB5_CONFIG;
  // Footer threads started from the sources run this run's bundle of their body (dev/thread-bundle.ts).
  await useSourceThreadBundle();
}
