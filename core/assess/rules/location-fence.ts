// Rule: a table (or partition) whose location is outside the location fence (core/storage/
// location-fence.ts: an object store s3/s3a/s3n, or a local path under storage.localRoots) is not
// planned: a `file:///var/data/…` of one host would be registered into a shared catalog, a
// `file:///etc/ssl/certs` would make the worker list its own /etc, an hdfs:/gs:/http: location
// names storage this tool does not read. Apply's live re-check runs it again with the worker's own
// config (LOCATION_NOT_ALLOWED). Only when the options carry a fence (every configured path sets
// one; core callers without config give none). Pure; no I/O beyond the injected realpath.
import { fenceViolations } from '../../storage/location-fence';
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

export const locationFenceRule: Rule = (t, options) => {
  const fence = options.locationFence;
  if (isView(t) || fence === undefined) return [];
  const hits = fenceViolations(
    [
      { what: 'the table', location: t.table.sd.location },
      ...t.partitions.map((p) => ({ what: `partition ${p.name}`, location: p.sd.location })),
    ],
    fence,
  );
  if (hits.length === 0) return [];
  return [
    finding(
      AssessCode.LOCATION_NOT_ALLOWED,
      'skip',
      `${hits.slice(0, 5).join('; ')}${hits.length > 5 ? ` (+${hits.length - 5} more)` : ''}`,
      'keep the table’s data in an object store (s3://, s3a://, s3n://); for local-disk warehouses list their directories in storage.localRoots (on the client and the workers), then plan again',
    ),
  ];
};
