// The location fence: object stores always, local paths only under storage.localRoots,
// every other scheme refused — and none of the ways a path can escape a root gets through: `..`,
// percent-encoded `%2e%2e`, `file:/x` vs `file:///x`, an uppercase scheme, a sibling with the same
// prefix (/data vs /data2), a trailing slash, a host in a file: URI, a symlinked prefix.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realpathOfLongestExisting } from '../../../adapters/storage/local-realpath';
import { locationFenceProblem, OBJECT_STORES_ONLY } from '../../../core/storage/location-fence';
import type { LocationFence } from '../../../core/storage/location-fence';

const DATA: LocationFence = { localRoots: ['/data'] };
const ok = (loc: string, f: LocationFence = DATA): void => expect(locationFenceProblem(loc, f)).toBeNull();
const refused = (loc: string, f: LocationFence = DATA): string => {
  const why = locationFenceProblem(loc, f);
  expect(why).not.toBeNull();
  return why!;
};

describe('location fence: schemes', () => {
  it.each(['s3://b/t', 's3a://b/t/p=1/', 'S3N://b/t', 'S3A://b/t'])('%s is an object store: allowed with no local roots', (loc) => {
    ok(loc, OBJECT_STORES_ONLY);
  });

  it.each([
    'hdfs://nn:8020/wh/t',
    'viewfs://c/wh',
    'wasb://c@a.blob.core.windows.net/t',
    'gs://b/t',
    'http://h/t',
    'HTTPS://h/t',
    'abfss://c@a/t',
    'ftp://h/t',
  ])('%s: refused naming the scheme, even with local roots', (loc) => {
    const scheme = loc.slice(0, loc.indexOf(':')).toLowerCase();
    expect(refused(loc, { localRoots: ['/'] })).toContain(`scheme ${scheme}:`);
  });

  it.each(['file:///etc/ssl/certs', 'file:/etc/ssl/certs', 'FILE:///etc', 'File://localhost/etc', '/etc/ssl/certs'])(
    '%s: a local path is refused when storage.localRoots is unset',
    (loc) => {
      expect(refused(loc, OBJECT_STORES_ONLY)).toContain('storage.localRoots allows none');
    },
  );

  it('relative and empty locations are left to LOCATION_INVALID', () => {
    ok('relative/dir', OBJECT_STORES_ONLY);
    ok('', OBJECT_STORES_ONLY);
    expect(locationFenceProblem(null, OBJECT_STORES_ONLY)).toBeNull();
  });
});

describe('location fence: local roots', () => {
  it.each([
    'file:///data/wh/t',
    'file:/data/wh/t',
    'FILE:///data',
    'file://localhost/data/wh/',
    '/data/wh/t',
    'file:///data/',
    'file:///data/a%20b',
  ])('%s is under /data: allowed', (loc) => ok(loc));

  it.each([
    ['`..` segments', 'file:///data/../etc/ssl/certs'],
    ['`..` in a bare path', '/data/wh/../../etc'],
    ['percent-encoded `..`', 'file:///data/%2e%2e/etc'],
    ['percent-encoded `..` upper case', 'file:///data/%2E%2E/%2E%2E/etc'],
    ['an encoded slash with dots', 'file:///data/..%2f..%2fetc'],
    ['a sibling sharing the prefix', 'file:///data2/t'],
    ['a sibling sharing the prefix, bare', '/database/t'],
    ['file:/etc (Hadoop form)', 'file:/etc'],
    ['file:///etc', 'file:///etc'],
    ['uppercase scheme outside', 'FILE:///etc'],
    ['a file: URI naming a host', 'file://otherhost/data/t'],
    ['a malformed escape', 'file:///data/%zz/../../etc'],
  ])('%s (%s): refused', (_what, loc) => {
    refused(loc);
  });

  it('a root written with a trailing slash or dots is the same root; / allows every local path', () => {
    ok('file:///data/t', { localRoots: ['/data/'] });
    ok('file:///data/t', { localRoots: ['/x/../data//'] });
    refused('file:///data2/t', { localRoots: ['/data/'] });
    ok('file:///anything', { localRoots: ['/'] });
  });

  it('the refusal names the normalised path and the roots', () => {
    expect(refused('file:///data/%2e%2e/etc/ssl')).toBe('local path /etc/ssl is outside storage.localRoots (/data)');
  });
});

describe('location fence: symlinks (real directories)', () => {
  let dir: string;
  beforeAll(() => {
    dir = realpathOfLongestExisting(mkdtempSync(path.join(os.tmpdir(), 'him-fence-')));
    mkdirSync(path.join(dir, 'root', 'wh'), { recursive: true });
    mkdirSync(path.join(dir, 'outside', 'secret'), { recursive: true });
    symlinkSync(path.join(dir, 'outside'), path.join(dir, 'root', 'link'));
    symlinkSync(path.join(dir, 'root'), path.join(dir, 'rootlink'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fence = (): LocationFence => ({ localRoots: [path.join(dir, 'root')], realpath: realpathOfLongestExisting });

  it('a symlinked prefix inside a root that points outside it is refused', () => {
    expect(refused(`file://${dir}/root/link/secret`, fence())).toContain(`resolves through a symlink to ${dir}/outside/secret`);
    // Not there yet: resolved through its longest existing prefix.
    refused(`file://${dir}/root/link/not-yet/p=1`, fence());
  });

  it('a real directory under the root, existing or not, is allowed', () => {
    ok(`file://${dir}/root/wh`, fence());
    ok(`file://${dir}/root/wh/new/p=1/`, fence());
  });

  it('a root given through a symlink compares by its real path', () => {
    ok(`file://${dir}/root/wh`, { localRoots: [path.join(dir, 'rootlink')], realpath: realpathOfLongestExisting });
    ok(`file://${dir}/rootlink/wh`, fence());
  });
});
