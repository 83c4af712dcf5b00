// The MigrationError a synchronous call throws (for unit tests of coded errors); anything else
// thrown is re-thrown, and no throw at all fails the test.
import { MigrationError } from '../../core/errors';

export function errorOf(fn: () => unknown): MigrationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof MigrationError) return e;
    throw e;
  }
  throw new Error('expected a MigrationError');
}

/** The MigrationError a promise rejects with (anything else is re-thrown; a resolve fails the test). */
export async function rejectionOf(p: Promise<unknown>): Promise<MigrationError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MigrationError) return e;
    throw e;
  }
  throw new Error('expected a MigrationError');
}
