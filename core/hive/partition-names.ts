// Partition-name escaping exactly as Hive does it, so names we build or parse match HMS's
// PARTITIONS.PART_NAME and the directory names Hive writes. Pure; no I/O.
//
// Source: apache/hive standalone-metastore/metastore-common/src/main/java/org/apache/hadoop/hive/
// metastore/utils/FileUtils.java (charToEscape, escapePathName, unescapePathName, makePartName);
// the Hive 2/3 copy in common/src/java/org/apache/hadoop/hive/common/FileUtils.java also escapes
// ' ', '<', '>', '|' when Shell.WINDOWS — our `windows` option.
import { ErrorCode, MigrationError } from '../errors';
import { HIVE_DEFAULT_PARTITION } from './model';

// charToEscape: every char below ' ' (0x00–0x1F, the loop `for (char c = 0; c < ' '; c++)`), then
// the explicit list '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', '\u007F', '{', '[', ']', '^'.
const ESCAPED: ReadonlySet<number> = new Set<number>([
  ...Array.from({ length: 0x20 }, (_, i) => i),
  ...Array.from('"#%\'*/:=?\\\u007F{[]^', (c) => c.charCodeAt(0)),
]);
const ESCAPED_WINDOWS: ReadonlySet<number> = new Set<number>([...ESCAPED, ...Array.from(' <>|', (c) => c.charCodeAt(0))]);

export interface EscapeOptions {
  /** Also escape ' ', '<', '>', '|' (Hive on Windows). Default false. */
  readonly windows?: boolean;
}

/**
 * FileUtils.escapePathName: each escaped char (a UTF-16 code unit < 0x80 in the set) becomes `%XX`
 * (upper-case hex); null or '' becomes `__HIVE_DEFAULT_PARTITION__`.
 */
export function escapePathName(value: string | null, opts: EscapeOptions = {}): string {
  if (value === null || value === '') return HIVE_DEFAULT_PARTITION;
  const set = opts.windows === true ? ESCAPED_WINDOWS : ESCAPED;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    out += set.has(code) ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : value.charAt(i);
  }
  return out;
}

/**
 * FileUtils.unescapePathName: `%` followed by two chars that Java's Integer.parseInt(s, 16) accepts
 * as a non-negative number becomes that char (so "%+1" is \u0001 and "%-0" is \u0000, as in Hive);
 * anything else (including a `%` with fewer than two chars after it) is kept verbatim.
 */
export function unescapePathName(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name.charAt(i);
    if (c === '%' && i + 2 < name.length) {
      const code = javaParseHex(name.slice(i + 1, i + 3));
      if (code !== null && code >= 0) {
        out += String.fromCharCode(code);
        i += 2;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** Java Integer.parseInt(s, 16) for a 2-char string: optional sign, then hex digits; else null. */
function javaParseHex(s: string): number | null {
  const m = /^([+-]?)([0-9A-Fa-f]+)$/.exec(s);
  if (m === null || m[2] === undefined) return null;
  const n = parseInt(m[2], 16);
  return m[1] === '-' ? -n : n;
}

/**
 * FileUtils.makePartName: `k1=v1/k2=v2`, keys lower-cased then escaped, values escaped; a null or
 * empty value is written as `__HIVE_DEFAULT_PARTITION__` (so '' reads back as null, as in Hive).
 */
export function makePartName(keys: readonly string[], values: readonly (string | null)[], opts: EscapeOptions = {}): string {
  if (keys.length !== values.length || keys.length === 0) {
    throw new MigrationError(ErrorCode.HMS_BAD_METADATA, `makePartName: ${keys.length} keys but ${values.length} values`, { keys, values });
  }
  return keys.map((k, i) => `${escapePathName(k.toLowerCase(), opts)}=${escapePathName(values[i] ?? null, opts)}`).join('/');
}

/** A partition value as read from HMS (or a name): the default-partition marker means null. */
export function partitionValueFromHms(raw: string | null): string | null {
  return raw === null || raw === HIVE_DEFAULT_PARTITION ? null : raw;
}

/**
 * Split a partition name into unescaped (key, value) pairs, as Warehouse.makeSpecFromName does:
 * split on '/', each part on its first '=' (escaped names contain no other '/' or '=').
 */
export function parsePartNameSpec(name: string): { key: string; value: string | null }[] {
  return name.split('/').map((part) => {
    const eq = part.indexOf('=');
    if (eq <= 0) {
      throw new MigrationError(ErrorCode.HMS_BAD_METADATA, `not a partition name: '${name}' (component '${part}' has no key=value)`, {
        name,
      });
    }
    return { key: unescapePathName(part.slice(0, eq)), value: partitionValueFromHms(unescapePathName(part.slice(eq + 1))) };
  });
}

/** The unescaped values of a partition name, in order; `__HIVE_DEFAULT_PARTITION__` → null. */
export function parsePartName(name: string): (string | null)[] {
  return parsePartNameSpec(name).map((p) => p.value);
}
