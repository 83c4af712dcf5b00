// The HMS IDL version `migrate --version` reports is the one the IDL file says it was taken from.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HMS_IDL_VERSION } from '../../../adapters/hms/thrift/idl-version';

test('HMS_IDL_VERSION is the Hive release named in the header of thrift-idl/hive_metastore.thrift', () => {
  const idl = readFileSync(path.join(__dirname, '..', '..', '..', 'thrift-idl', 'hive_metastore.thrift'), 'utf8');
  const header = idl
    .split('\n')
    .filter((l) => l.startsWith('//'))
    .map((l) => l.replace(/^\/\/ ?/, ''))
    .join(' ');
  expect(header.match(/Source: apache\/hive \S+ at Hive (\d+\.\d+\.\d+)/)?.[1]).toBe(HMS_IDL_VERSION);
});
