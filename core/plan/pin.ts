// The conversion pin (plan file version 3): what decides how a table converts, recorded per table at
// plan time and compared with the live table at apply. Columns and types in order, partition keys
// and types, the detected file format (which is where the SerDe parameters that matter — the text
// field delimiter — come in: core/hive/formats.ts) of the table and of its partitions, input/output
// format and SerDe class, location, table type, bucketing, a view's text, and the class and finding
// codes of the per-table assessment rules. What does not change the conversion is left out: stats,
// DDL times, owners, comments, and the partitions themselves (new partitions and files are converted
// as they are at apply; a partition that changes a pinned fact — another format, a location outside
// the table's, a value that does not parse — shows up as a finding code). Pure; no I/O.
import { detectFormat } from '../hive/formats';
import type { HiveColumn, TableInventory } from '../hive/model';
import { RULES, classify } from '../assess/assess';
import { AssessCode } from '../assess/types';
import { DEFAULT_ASSESS_OPTIONS } from '../assess/types';
import type { ConversionPin } from './types';

/**
 * Finding codes that describe how much data a table holds, not how it converts: a table that was
 * empty at plan time has partitions at apply, a stats refresh fills in missing stats.
 */
const VOLUME_CODES: ReadonlySet<string> = new Set([
  AssessCode.EMPTY_TABLE,
  AssessCode.STATS_MISSING,
  // A write open at plan or apply time is a moment of the table, not its conversion: apply refuses it
  // with its own code (ACID_WRITE_OPEN); new committed writes are new files, converted as they are.
  AssessCode.INSERT_ONLY_WRITE_OPEN,
]);

const pinColumns = (cols: readonly HiveColumn[]): ConversionPin['columns'] => cols.map((c) => ({ name: c.name, type: c.type.trim() }));
const trimSlash = (s: string | null): string | null => (s === null ? null : s.replace(/\/+$/, ''));

/**
 * The pin of one table as HMS holds it. The rules run with the default assessment options, so the
 * pin depends on the table alone: a worker whose `plan.assess` differs from the planner's (bucketed
 * tables) is refused by apply's live re-check with its own code, not reported as a changed table.
 */
export function conversionPin(inv: TableInventory): ConversionPin {
  const t = inv.table;
  const findings = RULES.flatMap((r) => r(inv, DEFAULT_ASSESS_OPTIONS)).filter((f) => !VOLUME_CODES.has(f.code));
  const format = detectFormat(t.sd, t.parameters);
  return {
    tableType: t.tableType,
    columns: pinColumns(t.sd.columns),
    partitionKeys: pinColumns(t.partitionKeys),
    location: trimSlash(t.sd.location),
    format,
    partitionFormats: [...new Set(inv.partitions.map((p) => detectFormat(p.sd, t.parameters)))].filter((f) => f !== format).sort(),
    inputFormat: t.sd.inputFormat,
    outputFormat: t.sd.outputFormat,
    serde: t.sd.serde.serializationLib,
    bucketing: { buckets: t.sd.numBuckets > 0 ? t.sd.numBuckets : 0, columns: t.sd.numBuckets > 0 ? [...t.sd.bucketColumns] : [] },
    viewText: t.viewExpandedText ?? t.viewOriginalText,
    assessment: { class: classify(findings), findings: [...new Set(findings.map((f) => f.code))].sort() },
  };
}

const show = (v: string | null): string => (v === null || v === '' ? '(none)' : v);
const list = (xs: readonly string[]): string => (xs.length === 0 ? '(none)' : xs.join(', '));
const bucketsOf = (b: ConversionPin['bucketing']): string =>
  b.buckets === 0 ? 'none' : `${b.buckets} buckets on (${b.columns.join(', ')})`;

/** Types changed, then added, removed, and a new order of the columns both sides have. */
function diffColumns(label: string, planned: ConversionPin['columns'], live: ConversionPin['columns']): string[] {
  const before = new Map(planned.map((c) => [c.name, c.type]));
  const now = new Map(live.map((c) => [c.name, c.type]));
  const out: string[] = [];
  for (const c of planned) {
    const t = now.get(c.name);
    if (t !== undefined && t !== c.type) out.push(`${label} ${c.name}: ${c.type} → ${t}`);
  }
  for (const c of live) if (!before.has(c.name)) out.push(`${label} added: ${c.name} ${c.type}`);
  for (const c of planned) if (!now.has(c.name)) out.push(`${label} removed: ${c.name} ${c.type}`);
  const a = planned.map((c) => c.name).filter((n) => now.has(n));
  const b = live.map((c) => c.name).filter((n) => before.has(n));
  if (a.join('\u0000') !== b.join('\u0000')) out.push(`${label} order: ${a.join(', ')} → ${b.join(', ')}`);
  return out;
}

function diffAssessment(planned: ConversionPin['assessment'], live: ConversionPin['assessment']): string[] {
  const added = live.findings.filter((c) => !planned.findings.includes(c));
  const gone = planned.findings.filter((c) => !live.findings.includes(c));
  const codes = [...added, ...gone.map((c) => `no longer ${c}`)];
  if (planned.class !== live.class) return [`class: ${planned.class} → ${live.class}${codes.length === 0 ? '' : ` (${codes.join(', ')})`}`];
  return [...added.map((c) => `finding added: ${c}`), ...gone.map((c) => `finding gone: ${c}`)];
}

/**
 * What differs between the pin a plan recorded and the live table's, one human-readable line per
 * difference (e.g. `column amount: decimal(10,2) → decimal(12,2)`); [] when the conversion is the same.
 */
export function diffPins(planned: ConversionPin, live: ConversionPin): string[] {
  const out: string[] = [];
  const scalar = (label: string, a: string | null, b: string | null): void => {
    if (a !== b) out.push(`${label}: ${show(a)} → ${show(b)}`);
  };
  scalar('table type', planned.tableType, live.tableType);
  out.push(...diffColumns('column', planned.columns, live.columns));
  out.push(...diffColumns('partition key', planned.partitionKeys, live.partitionKeys));
  scalar('location', planned.location, live.location);
  scalar('format', planned.format, live.format);
  if (list(planned.partitionFormats) !== list(live.partitionFormats))
    out.push(`partitions in other formats: ${list(planned.partitionFormats)} → ${list(live.partitionFormats)}`);
  scalar('input format', planned.inputFormat, live.inputFormat);
  scalar('output format', planned.outputFormat, live.outputFormat);
  scalar('serde', planned.serde, live.serde);
  if (bucketsOf(planned.bucketing) !== bucketsOf(live.bucketing))
    out.push(`bucketing: ${bucketsOf(planned.bucketing)} → ${bucketsOf(live.bucketing)}`);
  if (planned.viewText !== live.viewText) out.push('view text changed');
  out.push(...diffAssessment(planned.assessment, live.assessment));
  return out;
}
