// SkewedInfo field 3, `map<list<string>, string> skewedColValueLocationMaps`, has no JavaScript object
// form. The generated js:node code reads each key list into an array and uses it as a property
// name (values joined with ",": lossy when a value contains a comma, and two tuples that join to
// the same string overwrite each other); its writer sends each *character* of such a key as a list
// element. installSkewedCodec() replaces SkewedInfo's read/write with a raw-protocol codec whose
// object keys are the tuples as JSON arrays (`["a,b","c"]`): lossless, and — unlike a side table —
// it survives the generated constructors, which deep-copy nested structs (Table → sd → skewedInfo).
// skewedLocations / setSkewedLocations convert. Adapter code.
import thrift from 'thrift';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';

const T = thrift.Thrift.Type;

export interface SkewedLocation {
  readonly values: readonly string[];
  readonly location: string;
}

function tupleOfKey(key: string): string[] | undefined {
  if (!key.startsWith('[')) return undefined;
  try {
    const v = JSON.parse(key) as unknown;
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The location map with its tuples intact (read by our codec or set with setSkewedLocations). */
export function skewedLocations(info: ttypes.SkewedInfo): SkewedLocation[] {
  const map: Record<string, string> = info.skewedColValueLocationMaps ?? {};
  // A map some other code built with the generated join-by-"," keys: match them to the value tuples.
  const byJoined = new Map((info.skewedColValues ?? []).map((v) => [v.join(','), v] as const));
  return Object.entries(map).map(([k, location]) => ({ values: tupleOfKey(k) ?? byJoined.get(k) ?? [k], location }));
}

/** Set the location map by tuples (what the writer sends). */
export function setSkewedLocations(info: ttypes.SkewedInfo, locations: readonly SkewedLocation[]): void {
  info.skewedColValueLocationMaps = Object.fromEntries(locations.map((l) => [JSON.stringify(l.values), l.location]));
}

function readStringList(input: thrift.TProtocol): string[] {
  const { size } = input.readListBegin();
  const out: string[] = [];
  for (let i = 0; i < (size || 0); i++) out.push(input.readString());
  input.readListEnd();
  return out;
}

function writeStringList(output: thrift.TProtocol, list: readonly string[]): void {
  output.writeListBegin(T.STRING, list.length);
  for (const s of list) output.writeString(s);
  output.writeListEnd();
}

function read(this: ttypes.SkewedInfo, input: thrift.TProtocol): void {
  input.readStructBegin();
  for (;;) {
    const { ftype, fid } = input.readFieldBegin();
    if (ftype === T.STOP) break;
    if (fid === 1 && ftype === T.LIST) this.skewedColNames = readStringList(input);
    else if (fid === 2 && ftype === T.LIST) {
      const { size } = input.readListBegin();
      const values: string[][] = [];
      for (let i = 0; i < (size || 0); i++) values.push(readStringList(input));
      input.readListEnd();
      this.skewedColValues = values;
    } else if (fid === 3 && ftype === T.MAP) {
      const { size } = input.readMapBegin();
      const locations: SkewedLocation[] = [];
      for (let i = 0; i < (size || 0); i++) {
        const values = readStringList(input);
        locations.push({ values, location: input.readString() });
      }
      input.readMapEnd();
      setSkewedLocations(this, locations);
    } else input.skip(ftype);
    input.readFieldEnd();
  }
  input.readStructEnd();
}

function write(this: ttypes.SkewedInfo, output: thrift.TProtocol): void {
  output.writeStructBegin('SkewedInfo');
  if (this.skewedColNames != null) {
    output.writeFieldBegin('skewedColNames', T.LIST, 1);
    writeStringList(output, this.skewedColNames);
    output.writeFieldEnd();
  }
  if (this.skewedColValues != null) {
    output.writeFieldBegin('skewedColValues', T.LIST, 2);
    output.writeListBegin(T.LIST, this.skewedColValues.length);
    for (const v of this.skewedColValues) writeStringList(output, v);
    output.writeListEnd();
    output.writeFieldEnd();
  }
  if (this.skewedColValueLocationMaps != null) {
    const locations = skewedLocations(this);
    output.writeFieldBegin('skewedColValueLocationMaps', T.MAP, 3);
    output.writeMapBegin(T.LIST, T.STRING, locations.length);
    for (const l of locations) {
      writeStringList(output, l.values);
      output.writeString(l.location);
    }
    output.writeMapEnd();
    output.writeFieldEnd();
  }
  output.writeFieldStop();
  output.writeStructEnd();
}

let installed = false;

/** Idempotent; called by connection.ts before any Thrift traffic. */
export function installSkewedCodec(): void {
  if (installed) return;
  installed = true;
  const proto = ttypes.SkewedInfo.prototype as unknown as { read: typeof read; write: typeof write };
  proto.read = read;
  proto.write = write;
}
