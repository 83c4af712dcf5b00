// The subset of the Hive Metastore Thrift IDL that hms-iceberg-migrator uses.
//
// Source: apache/hive standalone-metastore/metastore-common/src/main/thrift/hive_metastore.thrift
// at Hive 4.0.1, checked against an IDL reconstructed from the generated classes in
// hive-standalone-metastore-common-4.0.1.jar (field ids, types and requiredness exact). Defaults
// (e.g. writeId=-1, max_parts=-1) are taken from the upstream text. Which methods a migration needs,
// what Hive 4 removed and what 3.1 lacks: docs/design/hive-metastore.md §1.3, §1.4.
//
// Rules for editing this file:
// - Field ids, names, types and requiredness stay exactly as upstream; never renumber.
// - Fields may be left out (a Thrift decoder skips unknown field ids), so this subset stays
//   wire-compatible with HMS 3.1.x and 4.x. Omitted fields are listed in a comment where they sit.
// - Upstream declares `service ThriftHiveMetastore extends fb303.FacebookService`. Inheritance is not
//   on the wire (a call is a method name + args struct), so we drop the `extends` and declare the
//   three fb303 methods we call directly.
// - After editing, run `npm run gen:thrift` and commit thrift-idl/gen/.

namespace java org.apache.hadoop.hive.metastore.api

// Table/partition parameter keys (upstream constants at the end of the IDL).
const string DDL_TIME = "transient_lastDdlTime"
const string META_TABLE_STORAGE = "storage_handler"
const string TABLE_IS_TRANSACTIONAL = "transactional"
const string TABLE_TRANSACTIONAL_PROPERTIES = "transactional_properties"
const string TABLE_BUCKETING_VERSION = "bucketing_version"
const string EXPECTED_PARAMETER_KEY = "expected_parameter_key"
const string EXPECTED_PARAMETER_VALUE = "expected_parameter_value"

enum PrincipalType {
  USER = 1,
  ROLE = 2,
  GROUP = 3,
}

enum SerdeType {
  HIVE = 1,
  SCHEMA_REGISTRY = 2,
}

enum DatabaseType {
  NATIVE = 1,
  REMOTE = 2,
}

enum PartitionFilterMode {
  BY_NAMES = 0,
  BY_VALUES = 1,
  BY_EXPR = 2,
}

enum ClientCapability {
  TEST_CAPABILITY = 1,
  INSERT_ONLY_TABLES = 2,
}

struct FieldSchema {
  1: string name,
  2: string type,
  3: string comment,
}

struct EnvironmentContext {
  1: map<string, string> properties,
}

struct PrivilegeGrantInfo {
  1: string privilege,
  2: i32 createTime,
  3: string grantor,
  4: PrincipalType grantorType,
  5: bool grantOption,
}

struct PrincipalPrivilegeSet {
  1: map<string, list<PrivilegeGrantInfo>> userPrivileges,
  2: map<string, list<PrivilegeGrantInfo>> groupPrivileges,
  3: map<string, list<PrivilegeGrantInfo>> rolePrivileges,
}

struct Database {
  1: string name,
  2: string description,
  3: string locationUri,
  4: map<string, string> parameters,
  5: optional PrincipalPrivilegeSet privileges,
  6: optional string ownerName,
  7: optional PrincipalType ownerType,
  8: optional string catalogName,
  9: optional i32 createTime,
  10: optional string managedLocationUri,
  11: optional DatabaseType type,
  12: optional string connector_name,
  13: optional string remote_dbname,
}

struct SerDeInfo {
  1: string name,
  2: string serializationLib,
  3: map<string, string> parameters,
  4: optional string description,
  5: optional string serializerClass,
  6: optional string deserializerClass,
  7: optional SerdeType serdeType,
}

// asc = 1, desc = 0
struct Order {
  1: string col,
  2: i32 order,
}

// Field 3 is a map keyed by a list, which has no JavaScript object form. The generated js:node code
// reads each key into an array and uses it as an object property name, i.e. the values joined
// with "," (lossy when a value contains a comma); writing such an object back sends every
// *character* of the key as a list element — silent corruption. adapters/hms/thrift/skewed.ts
// replaces SkewedInfo's read/write at runtime (keys become JSON arrays of the tuple); use its
// skewedLocations/setSkewedLocations, never the map's keys directly.
struct SkewedInfo {
  1: list<string> skewedColNames,
  2: list<list<string>> skewedColValues,
  3: map<list<string>, string> skewedColValueLocationMaps,
}

struct StorageDescriptor {
  1: list<FieldSchema> cols,
  2: string location,
  3: string inputFormat,
  4: string outputFormat,
  5: bool compressed,
  6: i32 numBuckets,
  7: SerDeInfo serdeInfo,
  8: list<string> bucketCols,
  9: list<Order> sortCols,
  10: map<string, string> parameters,
  11: optional SkewedInfo skewedInfo,
  12: optional bool storedAsSubDirectories,
}

struct FileMetadata {
  1: byte type = 1,
  2: byte version = 1,
  3: list<binary> data,
}

struct ObjectDictionary {
  1: required map<string, list<binary>> values,
}

struct Table {
  1: string tableName,
  2: string dbName,
  3: string owner,
  4: i32 createTime,
  5: i32 lastAccessTime,
  6: i32 retention,
  7: StorageDescriptor sd,
  8: list<FieldSchema> partitionKeys,
  9: map<string, string> parameters,
  10: string viewOriginalText,
  11: string viewExpandedText,
  12: string tableType,
  13: optional PrincipalPrivilegeSet privileges,
  14: optional bool temporary = false,
  15: optional bool rewriteEnabled,
  // 16: optional CreationMetadata creationMetadata (materialized views only) — omitted
  17: optional string catName,
  18: optional PrincipalType ownerType = PrincipalType.USER,
  19: optional i64 writeId = -1,
  20: optional bool isStatsCompliant,
  // 21: optional ColumnStatistics colStats — omitted (we never request column statistics)
  22: optional byte accessType,
  23: optional list<string> requiredReadCapabilities,
  24: optional list<string> requiredWriteCapabilities,
  25: optional i64 id,
  26: optional FileMetadata fileMetadata,
  27: optional ObjectDictionary dictionary,
  28: optional i64 txnId,
}

struct Partition {
  1: list<string> values,
  2: string dbName,
  3: string tableName,
  4: i32 createTime,
  5: i32 lastAccessTime,
  6: StorageDescriptor sd,
  7: map<string, string> parameters,
  8: optional PrincipalPrivilegeSet privileges,
  9: optional string catName,
  10: optional i64 writeId = -1,
  11: optional bool isStatsCompliant,
  // 12: optional ColumnStatistics colStats — omitted (we never request column statistics)
  13: optional FileMetadata fileMetadata,
}

struct TableMeta {
  1: required string dbName,
  2: required string tableName,
  3: required string tableType,
  4: optional string comments,
  5: optional string catName,
  6: optional string ownerName,
  7: optional PrincipalType ownerType,
}

struct ClientCapabilities {
  1: required list<ClientCapability> values,
}

struct GetProjectionsSpec {
  1: list<string> fieldList,
  2: string includeParamKeyPattern,
  3: string excludeParamKeyPattern,
}

struct GetPartitionsFilterSpec {
  7: optional PartitionFilterMode filterMode,
  8: optional list<string> filters,
}

struct GetPartitionsRequest {
  1: optional string catName,
  2: string dbName,
  3: string tblName,
  4: optional bool withAuth,
  5: optional string user,
  6: optional list<string> groupNames,
  7: GetProjectionsSpec projectionSpec,
  8: GetPartitionsFilterSpec filterSpec,
  9: optional list<string> processorCapabilities,
  10: optional string processorIdentifier,
  11: optional string validWriteIdList,
}

struct PartitionWithoutSD {
  1: list<string> values,
  2: i32 createTime,
  3: i32 lastAccessTime,
  4: string relativePath,
  5: map<string,string> parameters,
}

struct PartitionSpecWithSharedSD {
  1: list<PartitionWithoutSD> partitions,
  2: StorageDescriptor sd,
}

struct PartitionListComposingSpec {
  1: list<Partition> partitions,
}

struct PartitionSpec {
  1: string dbName,
  2: string tableName,
  3: string rootPath,
  4: optional PartitionSpecWithSharedSD sharedSDPartitionSpec,
  5: optional PartitionListComposingSpec partitionList,
  6: optional string catName,
  7: optional i64 writeId,
  8: optional bool isStatsCompliant,
}

struct GetPartitionsResponse {
  1: list<PartitionSpec> partitionSpec,
}

// There is no field 5 upstream.
struct GetTableRequest {
  1: required string dbName,
  2: required string tblName,
  3: optional ClientCapabilities capabilities,
  4: optional string catName,
  6: optional string validWriteIdList,
  7: optional bool getColumnStats,
  8: optional list<string> processorCapabilities,
  9: optional string processorIdentifier,
  10: optional string engine,
  11: optional i64 id = -1,
}

struct GetTableResult {
  1: required Table table,
  2: optional bool isStatsCompliant,
}

struct GetTablesRequest {
  1: required string dbName,
  2: optional list<string> tblNames,
  3: optional ClientCapabilities capabilities,
  4: optional string catName,
  5: optional list<string> processorCapabilities,
  6: optional string processorIdentifier,
  7: optional GetProjectionsSpec projectionSpec,
  8: optional string tablesPattern,
}

struct GetTablesResult {
  1: required list<Table> tables,
}

// HMS 4.x only.
struct GetPartitionsByNamesRequest {
  1: required string db_name,
  2: required string tbl_name,
  3: optional list<string> names,
  4: optional bool get_col_stats,
  5: optional list<string> processorCapabilities,
  6: optional string processorIdentifier,
  7: optional string engine,
  8: optional string validWriteIdList,
  9: optional bool getFileMetadata,
  10: optional i64 id = -1,
  11: optional bool skipColumnSchemaForPartition,
  12: optional string includeParamKeyPattern,
  13: optional string excludeParamKeyPattern,
}

struct GetPartitionsByNamesResult {
  1: required list<Partition> partitions,
  2: optional ObjectDictionary dictionary,
}

// Transactions (insert-only ACID tables): the reader's snapshot and a table's valid write
// ids; the seed (dev/seed/acid.ts) writes through open/allocate/commit/abort as Hive does. Fields
// trimmed to what we send or read; ids as upstream (4.0.1).
struct GetOpenTxnsResponse {
  1: required i64 txn_high_water_mark,
  2: required list<i64> open_txns,
  3: optional i64 min_open_txn,
  4: required binary abortedBits,
}

struct GetValidWriteIdsRequest {
  1: required list<string> fullTableNames,
  2: optional string validTxnList,
  3: optional i64 writeId,
}

struct TableValidWriteIds {
  1: required string fullTableName,
  2: required i64 writeIdHighWaterMark,
  3: required list<i64> invalidWriteIds,
  4: optional i64 minOpenWriteId,
  5: required binary abortedBits,
}

struct GetValidWriteIdsResponse {
  1: required list<TableValidWriteIds> tblValidWriteIds,
}

struct OpenTxnRequest {
  1: required i32 num_txns,
  2: required string user,
  3: required string hostname,
  4: optional string agentInfo,
}

struct OpenTxnsResponse {
  1: required list<i64> txn_ids,
}

struct TxnToWriteId {
  1: required i64 txnId,
  2: required i64 writeId,
}

struct AllocateTableWriteIdsRequest {
  1: required string dbName,
  2: required string tableName,
  3: optional list<i64> txnIds,
}

struct AllocateTableWriteIdsResponse {
  1: required list<TxnToWriteId> txnToWriteIds,
}

struct CommitTxnRequest {
  1: required i64 txnid,
}

struct AbortTxnsRequest {
  1: required list<i64> txn_ids,
}

exception MetaException {
  1: string message,
}

exception UnknownTableException {
  1: string message,
}

exception UnknownDBException {
  1: string message,
}

exception AlreadyExistsException {
  1: string message,
}

exception InvalidObjectException {
  1: string message,
}

exception NoSuchObjectException {
  1: string message,
}

exception InvalidOperationException {
  1: string message,
}

exception NoSuchTxnException {
  1: string message,
}

exception TxnAbortedException {
  1: string message,
}

exception ConfigValSecurityException {
  1: string message,
}

service ThriftHiveMetastore {
  // fb303.FacebookService (inherited upstream; answered by HMSHandler)
  string getName(),
  string getVersion(),
  i64 aliveSince(),

  void create_database(1:Database database)
      throws (1:AlreadyExistsException o1, 2:InvalidObjectException o2, 3:MetaException o3)
  Database get_database(1:string name)
      throws (1:NoSuchObjectException o1, 2:MetaException o2)
  void drop_database(1:string name, 2:bool deleteData, 3:bool cascade)
      throws (1:NoSuchObjectException o1, 2:InvalidOperationException o2, 3:MetaException o3)
  list<string> get_all_databases()
      throws (1:MetaException o1)

  void create_table(1:Table tbl)
      throws (1:AlreadyExistsException o1, 2:InvalidObjectException o2, 3:MetaException o3, 4:NoSuchObjectException o4)
  // Upstream names exception id 2 `o3`; kept as is.
  void drop_table(1:string dbname, 2:string name, 3:bool deleteData)
      throws (1:NoSuchObjectException o1, 2:MetaException o3)
  list<TableMeta> get_table_meta(1:string db_patterns, 2:string tbl_patterns, 3:list<string> tbl_types)
      throws (1:MetaException o1)
  list<string> get_all_tables(1:string db_name)
      throws (1:MetaException o1)
  // get_table / get_table_objects_by_name were removed in 4.0.1 (HIVE-26537): use the _req forms.
  GetTableResult get_table_req(1:GetTableRequest req)
      throws (1:MetaException o1, 2:NoSuchObjectException o2)
  GetTablesResult get_table_objects_by_name_req(1:GetTablesRequest req)
      throws (1:MetaException o1, 2:InvalidOperationException o2, 3:UnknownDBException o3)
  void alter_table_with_environment_context(1:string dbname, 2:string tbl_name, 3:Table new_tbl, 4:EnvironmentContext environment_context)
      throws (1:InvalidOperationException o1, 2:MetaException o2)

  i32 add_partitions(1:list<Partition> new_parts)
      throws (1:InvalidObjectException o1, 2:AlreadyExistsException o2, 3:MetaException o3)
  list<Partition> get_partitions(1:string db_name, 2:string tbl_name, 3:i16 max_parts = -1)
      throws (1:NoSuchObjectException o1, 2:MetaException o2)
  list<string> get_partition_names(1:string db_name, 2:string tbl_name, 3:i16 max_parts = -1)
      throws (1:NoSuchObjectException o1, 2:MetaException o2)
  // 3.0+: partitions of one table with a field projection, grouped by shared storage descriptor.
  GetPartitionsResponse get_partitions_with_specs(1:GetPartitionsRequest request)
      throws (1:MetaException o1)
  // o3 exists on 4.x only; 3.1 declares o1 and o2.
  list<Partition> get_partitions_by_names(1:string db_name, 2:string tbl_name, 3:list<string> names)
      throws (1:MetaException o1, 2:NoSuchObjectException o2, 3:InvalidObjectException o3)
  // HMS 4.x only.
  GetPartitionsByNamesResult get_partitions_by_names_req(1:GetPartitionsByNamesRequest req)
      throws (1:MetaException o1, 2:NoSuchObjectException o2, 3:InvalidObjectException o3)

  string get_config_value(1:string name, 2:string defaultValue)
      throws (1:ConfigValSecurityException o1)

  // Transactions (insert-only ACID tables).
  GetOpenTxnsResponse get_open_txns()
  GetValidWriteIdsResponse get_valid_write_ids(1:GetValidWriteIdsRequest rqst)
      throws (1:NoSuchTxnException o1, 2:MetaException o2)
  OpenTxnsResponse open_txns(1:OpenTxnRequest rqst)
  AllocateTableWriteIdsResponse allocate_table_write_ids(1:AllocateTableWriteIdsRequest rqst)
      throws (1:NoSuchTxnException o1, 2:TxnAbortedException o2, 3:MetaException o3)
  void commit_txn(1:CommitTxnRequest rqst)
      throws (1:NoSuchTxnException o1, 2:TxnAbortedException o2)
  void abort_txns(1:AbortTxnsRequest rqst)
      throws (1:NoSuchTxnException o1)
}
