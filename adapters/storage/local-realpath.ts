// The symlink half of the location fence (core/storage/location-fence.ts): an absolute local path
// with its symlinks resolved. A path that does not exist (yet) resolves through its longest
// existing prefix, the rest appended as written (already normalised by the caller), so a link
// anywhere above a location is followed.
import { realpathSync } from 'node:fs';

export function realpathOfLongestExisting(p: string): string {
  const segs = p.split('/').filter((s) => s !== '');
  for (let n = segs.length; n >= 0; n--) {
    const head = `/${segs.slice(0, n).join('/')}`;
    try {
      const real = realpathSync.native(head);
      const rest = segs.slice(n).join('/');
      return rest === '' ? real : `${real.replace(/\/+$/, '')}/${rest}`;
    } catch {
      // not there (or not readable): try its parent
    }
  }
  return p;
}
