// The Hive Metastore Thrift IDL this client speaks, as `migrate --version` reports it. Source: the
// header of thrift-idl/hive_metastore.thrift ("Source: apache/hive … hive_metastore.thrift at Hive
// 4.0.1"), the upstream text our subset (and thrift-idl/gen/) was taken from; the subset stays
// wire-compatible with HMS 3.1.x and 4.x. test/unit/hive/idl-version.test.ts holds the two together.
export const HMS_IDL_VERSION = '4.0.1';
