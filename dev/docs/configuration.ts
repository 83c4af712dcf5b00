// docs/configuration.md from the zod schema (core/config/schema.ts, and the planner's own schemas
// for plan.waves, plan.ownership and plan.throughput): every key with its type, default, whether it
// is required, its environment variable and the JSDoc next to it in the code.
import path from 'node:path';
import { z } from 'zod';
import { configSchema } from '../../core/config/schema';
import { ownershipSchema } from '../../core/plan/ownership';
import { throughputSchema } from '../../core/plan/estimates';
import { waveOptionsSchema } from '../../core/plan/types';
import { DEFAULT_WAVES } from '../../app/plan/build';
import { propertyDocs } from './jsdoc';

const ROOT = path.resolve(__dirname, '..', '..');
type Json = { [k: string]: unknown };

/** Where each section's keys are documented: its schema's file and const (the JSDoc comments). */
const SOURCES: Record<string, { file: string; name: string }> = {
  '': { file: 'core/config/schema.ts', name: 'configSchema' },
  hms: { file: 'core/config/schema.ts', name: 'hmsSchema' },
  catalog: { file: 'core/config/schema.ts', name: 'catalogSchema' },
  'catalog.auth': { file: 'core/config/catalog-auth.ts', name: 'catalogAuthSchema' },
  storage: { file: 'core/config/schema.ts', name: 'storageSchema' },
  temporal: { file: 'core/config/schema.ts', name: 'temporalSchema' },
  state: { file: 'core/config/schema.ts', name: 'stateSchema' },
  plan: { file: 'core/config/schema.ts', name: 'planSchema' },
  'plan.signing': { file: 'core/config/schema.ts', name: 'planSigningSchema' },
  'plan.waves': { file: 'core/plan/types.ts', name: 'waveOptionsSchema' },
  'plan.ownership': { file: 'core/plan/ownership.ts', name: 'ownershipSchema' },
  'plan.throughput': { file: 'core/plan/estimates.ts', name: 'throughputSchema' },
  validation: { file: 'core/config/schema.ts', name: 'validationSchema' },
  audit: { file: 'core/config/schema.ts', name: 'auditSchema' },
  rewrite: { file: 'core/config/rewrite.ts', name: 'rewriteSchema' },
  readers: { file: 'core/config/readers.ts', name: 'readersSchema' },
  views: { file: 'core/config/schema.ts', name: 'viewsSchema' },
  logging: { file: 'core/config/observe.ts', name: 'loggingSchema' },
  metrics: { file: 'core/config/observe.ts', name: 'metricsSchema' },
};

/** Sub-schemas the config keeps as open records and the planner validates (their errors keep planner codes). */
const PLANNER: Record<string, { schema: z.ZodType; defaults?: Record<string, unknown> }> = {
  'plan.waves': { schema: waveOptionsSchema, defaults: DEFAULT_WAVES },
  'plan.ownership': { schema: ownershipSchema },
  'plan.throughput': { schema: throughputSchema },
};

export interface ConfigKey {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
  /** MIGRATE__… when the key can be set from the environment (a scalar reached through plain objects). */
  readonly env?: string;
  readonly description?: string;
  /** For the keys of a discriminated union (plan.signing): the form (`hmac`, `ed25519`) they belong to. */
  readonly form?: string;
}

const jsonOf = (s: z.ZodType): Json => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Json;

function typeOf(s: Json): string {
  if (Array.isArray(s.anyOf)) return (s.anyOf as Json[]).map(typeOf).join(' or ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  const lo = s.minimum as number | undefined;
  const hi = s.maximum === Number.MAX_SAFE_INTEGER ? undefined : (s.maximum as number | undefined);
  const range = (): string =>
    lo !== undefined && hi !== undefined ? ` ${lo}–${hi}` : lo !== undefined ? ` ≥ ${lo}` : hi !== undefined ? ` ≤ ${hi}` : '';
  switch (s.type) {
    case 'integer':
      return `integer${range()}`;
    case 'number':
      return s.exclusiveMinimum !== undefined ? `number > ${String(s.exclusiveMinimum)}` : `number${range()}`;
    case 'array':
      return `list of ${typeOf((s.items ?? {}) as Json)}`;
    case 'object':
      return s.properties ? 'mapping' : `map of ${typeOf((s.additionalProperties ?? {}) as Json) || 'any'}`;
    case 'string':
      return s.pattern !== undefined ? `string \`${String(s.pattern)}\`` : 'string';
    case 'null':
      return 'null';
    default:
      return typeof s.type === 'string' ? s.type : 'any';
  }
}

function docOf(p: string): string | undefined {
  // The most specific source first; a section's own line may sit on its parent's property (`hms: hmsSchema…`).
  const sections = Object.keys(SOURCES)
    .filter((k) => k === '' || p === k || p.startsWith(`${k}.`))
    .sort((a, b) => b.length - a.length);
  for (const section of sections) {
    const src = SOURCES[section] as { file: string; name: string };
    const rel = section === '' ? p : p === section ? '' : p.slice(section.length + 1);
    const doc = propertyDocs(path.join(ROOT, src.file), src.name).get(rel);
    if (doc !== undefined) return doc;
  }
  return undefined;
}

/** Every key under `s` (objects are walked; discriminated unions contribute each variant's keys). */
function walk(s: Json, at: string[], envOk: boolean, required: boolean, out: ConfigKey[]): void {
  const p = at.join('.');
  const planner = PLANNER[p];
  if (planner && !s['x-expanded']) {
    const inner = jsonOf(planner.schema);
    const withDefaults = planner.defaults ? defaultsInto(inner, planner.defaults) : inner;
    return walk({ ...withDefaults, default: s.default, 'x-expanded': true }, at, false, required, out);
  }
  const variants = (s.oneOf ?? s.anyOf) as Json[] | undefined;
  if (s.type === 'object' && s.properties) {
    if (at.length > 0) out.push(row(s, at, false, required));
    const req = new Set((s.required ?? []) as string[]);
    for (const [k, v] of Object.entries(s.properties as Record<string, Json>)) walk(v, [...at, k], envOk, req.has(k), out);
    return;
  }
  if (variants && variants.every((v) => v.type === 'object' && v.properties)) {
    out.push({ ...row(s, at, false, required), type: 'one of the forms below' });
    for (const v of variants) {
      const req = new Set((v.required ?? []) as string[]);
      const form = Object.values(v.properties as Record<string, Json>).find((x) => x.const !== undefined)?.const;
      const start = out.length;
      for (const [k, sub] of Object.entries(v.properties as Record<string, Json>)) walk(sub, [...at, k], false, req.has(k), out);
      const tag = out[start];
      if (tag && tag.description === undefined) out[start] = { ...tag, description: `selects this form` };
      // Each form's keys say which form they belong to.
      for (let i = start; i < out.length; i++) {
        const k = out[i] as ConfigKey;
        out[i] = { ...k, form: String(form) };
      }
    }
    return;
  }
  out.push(row(s, at, envOk && ['string', 'integer', 'number', 'boolean'].includes(String(s.type ?? (s.enum ? 'string' : ''))), required));
}

function defaultsInto(s: Json, defaults: Record<string, unknown>): Json {
  const props = { ...(s.properties as Record<string, Json>) };
  for (const [k, v] of Object.entries(defaults)) if (props[k]) props[k] = { ...props[k], default: v };
  return { ...s, properties: props, required: ((s.required ?? []) as string[]).filter((k) => !(k in defaults)) };
}

function row(s: Json, at: string[], env: boolean, required: boolean): ConfigKey {
  const p = at.join('.');
  return {
    path: p,
    type: typeOf(s),
    required,
    ...(s.default !== undefined ? { default: s.default } : {}),
    ...(env ? { env: `MIGRATE__${at.map((k) => k.toUpperCase()).join('__')}` } : {}),
    ...(docOf(p) !== undefined ? { description: docOf(p) } : {}),
  };
}

/** Every configuration key, in schema order. */
export function configKeys(): ConfigKey[] {
  const out: ConfigKey[] = [];
  walk(jsonOf(configSchema), [], true, false, out);
  return out;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const ORDER = [
  'hms',
  'catalog',
  'storage',
  'temporal',
  'state',
  'plan',
  'validation',
  'audit',
  'rewrite',
  'readers',
  'views',
  'logging',
  'metrics',
];

export function configurationMd(): string {
  const keys = configKeys();
  // A section of the schema missing here would be left out of the page without a word.
  const missing = keys.filter((k) => !k.path.includes('.') && !ORDER.includes(k.path)).map((k) => k.path);
  if (missing.length > 0) throw new Error(`dev/docs/configuration.ts ORDER lacks the section(s) ${missing.join(', ')}`);
  const sections = ORDER.map((section) => {
    const rows = keys.filter((k) => k.path.startsWith(`${section}.`) || k.path === section);
    const head = rows.find((k) => k.path === section);
    const lines = rows
      .filter((k) => k.path !== section)
      .map((k) => {
        const def = k.default === undefined ? '' : `\`${JSON.stringify(k.default)}\``;
        const env = k.env ? `\`${k.env}\`` : '—';
        const what = `${k.form ? `(${k.form}) ` : ''}${k.description ?? ''}`;
        return `| \`${k.path}\` | ${cell(k.type)} | ${k.required ? 'yes' : ''} | ${cell(def)} | ${env} | ${cell(what)} |`;
      });
    return [
      `## \`${section}:\``,
      '',
      head?.description ?? '',
      '',
      '| key | type | required | default | environment | what |',
      '|---|---|---|---|---|---|',
      ...lines,
      '',
    ].join('\n');
  });
  return `${HEADER}\n${sections.join('\n')}`;
}

const HEADER = `<!-- Generated by dev/docs/gen.ts from core/config/schema.ts (and core/plan's wave, ownership and throughput schemas). Do not edit: run \`npx tsx dev/docs/gen.ts\`. -->
# Configuration

One YAML file (\`--config\`, \`$MIGRATE_CONFIG\`, or \`./migrate.yaml\`), then \`MIGRATE__<SECTION>__<KEY>\`
environment variables, then \`--set section.key=value\` flags, validated once before anything runs
(an error names the path and where its value came from: \`CONFIG_INVALID\`, exit 2). Every section is
optional; a command refuses to start when one it needs is missing, and \`migrate doctor\` checks the
endpoints of those present. \`migrate.example.yaml\` has every section.

- **required**: required when its section is present.
- **environment**: the variable that sets the key (names are case-insensitive after \`MIGRATE__\`; the
  value is read as a YAML scalar: \`true\`, \`42\`). Lists, maps and the keys of \`plan.signing\` are set in
  the file or with \`--set\` (\`--set plan.waves.maxTablesPerWave=50\`). \`—\`: not from the environment.
- Secrets are never configuration values: the catalog token, the plan-signing HMAC key and the audit
  chain key are read from the environment variables the config *names*; S3 credentials come from the
  standard AWS environment (variables, profile, instance or pod role). A URI that carries one anyway
  (a jdbc \`catalog.uri\` or \`state.url\` with \`user:password@\` or \`?password=\`, an endpoint with
  user-info) is printed masked (\`user:***@\`, \`password=***\`) everywhere: human and \`--json\`
  output, \`doctor\`, plan headers and reports, and every coded error message (core/mask.ts).
- Table locations are fenced (\`LOCATION_NOT_ALLOWED\`): only object stores (\`s3://\`, \`s3a://\`,
  \`s3n://\`) unless \`storage.localRoots\` lists the local directories \`file:\` locations may lie under
  (compared after percent-decoding, \`..\` and symlinks; \`/data\` does not admit \`/data2\`). Every
  other scheme (\`hdfs:\`, \`viewfs:\`, \`wasb:\`, \`gs:\`, \`http:\`, …) is refused. Set it on the workers
  too: apply, sync and \`migrate table\` check with their own config.
`;
