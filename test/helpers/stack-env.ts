// Connection settings of the running local stack, for integration tests.
import { createContext } from '../../dev/stack/manifest';
import { stackEnv } from '../../dev/stack/env';

export function testStack(): Record<string, string> {
  return stackEnv(createContext(process.env, true));
}

/** A name no other test run will use (tests share one stack). */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
