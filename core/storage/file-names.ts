// Data file names the readers cannot open from an Iceberg manifest: the manifest holds the path as a
// URI, and PyIceberg parses it as one (`?` starts a query, `#` a fragment, `;` parameters: the rest of
// the name is dropped) while Iceberg Java's S3 URIs strip `?` and `#` too; control characters do not
// survive every reader's path handling. Such a file is registered and validated, then no reader can
// open it: the table is refused instead (plan: FILE_NAME_UNREADABLE; apply, sync, validation:
// CONVERT_FILE_NAME_UNREADABLE). Pure; no I/O.

// eslint-disable-next-line no-control-regex
const UNREADABLE = /[;?#\u0000-\u001f\u007f]/;

/** The characters of `path`'s last segment that readers cannot open, spelled for a message; null when it is fine. */
export function unreadableFileName(path: string): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (!UNREADABLE.test(name)) return null;
  const chars = [...new Set([...name].filter((c) => UNREADABLE.test(c)))];
  return chars
    .map((c) => (c.charCodeAt(0) < 0x20 || c === '\u007f' ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : `'${c}'`))
    .join(', ');
}
