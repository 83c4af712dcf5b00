// Manifest entries → the generated Thrift objects HMS receives (databases, tables, partitions).
// Dev tooling: builds HMS objects the way Hive itself would send them.
import thrift from 'thrift';
import * as ttypes from '../../thrift-idl/gen/hive_metastore_types';
import type { SeedColumn, SeedPartition, SeedSkew, SeedTable } from './manifest';

type TableArgs = NonNullable<ConstructorParameters<typeof ttypes.Table>[0]>;

const T = thrift.Thrift.Type;

/**
 * SkewedInfo with a correct wire form for field 3, `map<list<string>, string>`: the generated
 * js:node writer iterates a JavaScript object's string keys and sends each *character* of a key as
 * a list element, so any location map it writes is corrupt. This subclass writes the tuples itself.
 */
class SkewedInfoOut extends ttypes.SkewedInfo {
  constructor(private readonly skew: SeedSkew) {
    super({ skewedColNames: [...skew.cols], skewedColValues: skew.values.map((v) => [...v]), skewedColValueLocationMaps: {} });
  }

  write(output: thrift.TProtocol): void {
    const strings = (list: readonly string[]): void => {
      output.writeListBegin(T.STRING, list.length);
      for (const s of list) output.writeString(s);
      output.writeListEnd();
    };
    output.writeStructBegin('SkewedInfo');
    output.writeFieldBegin('skewedColNames', T.LIST, 1);
    strings(this.skew.cols);
    output.writeFieldEnd();
    output.writeFieldBegin('skewedColValues', T.LIST, 2);
    output.writeListBegin(T.LIST, this.skew.values.length);
    for (const v of this.skew.values) strings(v);
    output.writeListEnd();
    output.writeFieldEnd();
    output.writeFieldBegin('skewedColValueLocationMaps', T.MAP, 3);
    output.writeMapBegin(T.LIST, T.STRING, this.skew.locations.length);
    for (const l of this.skew.locations) {
      strings(l.values);
      output.writeString(l.location);
    }
    output.writeMapEnd();
    output.writeFieldEnd();
    output.writeFieldStop();
    output.writeStructEnd();
  }
}

const fields = (cols: readonly SeedColumn[]): ttypes.FieldSchema[] =>
  cols.map((c) => new ttypes.FieldSchema({ name: c.name, type: c.type, comment: c.comment }));

function storageDescriptor(t: SeedTable, cols: readonly SeedColumn[], location: string | null): ttypes.StorageDescriptor {
  const sd = new ttypes.StorageDescriptor({
    cols: fields(cols),
    // Views have no location: left null (unset on the wire), as Hive sends them.
    location: location as string,
    inputFormat: t.storage.inputFormat,
    outputFormat: t.storage.outputFormat,
    compressed: false,
    numBuckets: t.numBuckets,
    serdeInfo: new ttypes.SerDeInfo({
      name: t.storage.serde === null ? (null as unknown as string) : t.name,
      serializationLib: t.storage.serde as string,
      parameters: { ...t.storage.serdeParams },
    }),
    bucketCols: [...t.bucketCols],
    sortCols: t.sortCols.map((s) => new ttypes.Order({ col: s.col, order: s.order })),
    parameters: {},
  });
  return sd;
}

/**
 * Skew goes in after the Table/Partition is built: the generated constructors copy nested structs
 * (`new StorageDescriptor(args.sd)` → `new SkewedInfo(...)`), which would drop SkewedInfoOut.
 */
function withSkew<O extends { sd: ttypes.StorageDescriptor }>(obj: O, t: SeedTable): O {
  if (t.skew) {
    obj.sd.skewedInfo = new SkewedInfoOut(t.skew);
    obj.sd.storedAsSubDirectories = true;
  }
  return obj;
}

export function tableObject(t: SeedTable, createTime: number): ttypes.Table {
  const args: Omit<TableArgs, 'viewOriginalText' | 'viewExpandedText'> = {
    tableName: t.name,
    dbName: t.db,
    owner: t.owner,
    createTime,
    lastAccessTime: 0,
    retention: 0,
    sd: storageDescriptor(t, t.columns, t.location),
    partitionKeys: fields(t.partitionKeys),
    parameters: { ...t.params },
    tableType: t.tableType,
  };
  const table = new ttypes.Table(args as TableArgs);
  // Tables leave the view texts unset (null on the wire); views carry both.
  if (t.viewOriginalText !== null) table.viewOriginalText = t.viewOriginalText;
  if (t.viewExpandedText !== null) table.viewExpandedText = t.viewExpandedText;
  return withSkew(table, t);
}

export function partitionObject(
  t: SeedTable,
  p: SeedPartition,
  createTime: number,
  parameters: Record<string, string> = {},
): ttypes.Partition {
  const part = new ttypes.Partition({
    values: [...p.hmsValues],
    dbName: t.db,
    tableName: t.name,
    createTime,
    lastAccessTime: 0,
    // A drifted partition keeps its own (older) columns, as Hive leaves it after ALTER TABLE ... (no CASCADE).
    sd: storageDescriptor(t, p.columns ?? t.columns, p.location),
    parameters,
  });
  return withSkew(part, t);
}

export function databaseObject(name: string, location: string, parameters: Record<string, string> = {}): ttypes.Database {
  return new ttypes.Database({
    name,
    description: 'seeded by dev/seed (hms-iceberg-migrator test warehouse)',
    locationUri: location,
    parameters,
  });
}
