// The benches' command line: `--name value` pairs only (no bare flags), into a map.
export function flags(argv: readonly string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i];
    const v = argv[i + 1];
    if (k === undefined || !k.startsWith('--') || v === undefined) throw new Error(`bad arguments near '${k ?? ''}'`);
    m.set(k.slice(2), v);
  }
  return m;
}
