// The assessment options a config gives — the client's for `assess`/`plan`, the worker's for apply's
// live re-check and sync, `migrate table`'s own: one derivation so none can differ in what it fences.
import type { MigrateConfig } from '../../core/config/schema';
import type { AssessOptions } from '../../core/assess/types';
import { reservedLocationsOf } from '../../core/assess/rules/location-reserved';
import type { LocationFence } from '../../core/storage/location-fence';
import { realpathOfLongestExisting } from '../../adapters/storage/local-realpath';

/** Object stores always; local paths only under storage.localRoots (symlinks resolved on this host). */
export function locationFenceOf(cfg: MigrateConfig): LocationFence {
  return { localRoots: cfg.storage?.localRoots ?? [], realpath: realpathOfLongestExisting };
}

export function assessOptionsOf(cfg: MigrateConfig): AssessOptions {
  return {
    allowUnbucketed: cfg.plan?.assess.allowUnbucketed ?? false,
    reservedLocations: reservedLocationsOf(cfg),
    locationFence: locationFenceOf(cfg),
  };
}
