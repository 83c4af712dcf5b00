// `doctor` for the two places the tool writes besides tables: audit.anchorLocation (one immutable
// anchor per audited event, written create-only) and validation.resultsLocation (nightly results).
// A missing bucket or a role that may not write there passes every other check and then fails the
// first audited event or nightly run, so each is proven with a real write: a probe object under
// `<location>/doctor-probe/`, created with If-None-Match (as anchors are), then deleted. An anchor
// location that refuses the delete is fine (immutable storage, as an anchor store should be): the
// probe stays, named so that `audit verify` never reads it as an anchor.
import os from 'node:os';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, isMigrationError } from '../../core/errors';
import { REMEDIES } from '../../core/error-remedies';
import { asDirectory } from '../../core/storage/object-store';
import { openStores } from '../runtime/runtime';
import type { Outcome } from './outcome';

export interface LocationProbe {
  /** `audit anchor` or `validation results`. */
  readonly check: string;
  readonly location: string;
  /** Whether a refused delete still passes (the anchor store is create-only by design). */
  readonly keepIsOk: boolean;
}

/** The locations of `cfg` to probe. */
export function locationsOf(cfg: MigrateConfig, which: { anchor: boolean; results: boolean }): LocationProbe[] {
  const out: LocationProbe[] = [];
  const anchor = cfg.audit?.anchorLocation;
  if (which.anchor && anchor !== undefined) out.push({ check: 'audit anchor', location: anchor, keepIsOk: true });
  const results = cfg.validation?.resultsLocation;
  if (which.results && results !== undefined) out.push({ check: 'validation results', location: results, keepIsOk: false });
  return out;
}

function withDeadline<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const remedyFor = (code: string, l: LocationProbe): string =>
  `${REMEDIES[code as ErrorCode] ?? 'Check the location and the storage credentials.'} The ${l.check} location is ${l.check === 'audit anchor' ? 'audit.anchorLocation' : 'validation.resultsLocation'} (${l.location}): create the bucket or directory and let this role create objects under it.`;

/** Write then delete one probe object under `l.location`. */
export async function probeLocation(cfg: MigrateConfig, l: LocationProbe, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<Outcome> {
  const dir = `${asDirectory(l.location)}doctor-probe/`;
  const probe = `${dir}${os.hostname()}-${process.pid}-${Date.now()}.txt`;
  const stores = openStores(cfg, env);
  const store = stores.storeFor([dir]);
  const t0 = performance.now();
  try {
    const body = new TextEncoder().encode(`migrate doctor probe, ${new Date().toISOString()}\n`);
    await withDeadline(timeoutMs, `create ${probe}`, store.put(probe, body, { ifNoneMatch: '*' }));
  } catch (e) {
    stores.close();
    const code = isMigrationError(e) ? e.code : ErrorCode.STORAGE_ERROR;
    return { check: l.check, status: 'fail', code, detail: `cannot create ${probe}: ${(e as Error).message}`, remedy: remedyFor(code, l) };
  }
  const latencyMs = Math.round(performance.now() - t0);
  try {
    await withDeadline(timeoutMs, `delete ${probe}`, store.delete(probe));
    return { check: l.check, latencyMs, detail: `${l.location}: created and deleted a probe object` };
  } catch (e) {
    const code = isMigrationError(e) ? e.code : ErrorCode.STORAGE_ERROR;
    if (l.keepIsOk)
      return {
        check: l.check,
        latencyMs,
        detail: `${l.location}: created a probe object; the location refuses deletes (create-only, as anchors need), so ${probe} stays`,
      };
    return {
      check: l.check,
      status: 'fail',
      code,
      detail: `created ${probe} but cannot delete it: ${(e as Error).message}`,
      remedy: `Let this role delete objects under ${l.location} (validation replaces its results), then remove ${probe}.`,
    };
  } finally {
    stores.close();
  }
}
