// The one order of table ids: pure, no imports (the CLI renders with it without loading the schemas).

/** Table ids sort by UTF-16 code unit, never by locale, so every run orders alike. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
