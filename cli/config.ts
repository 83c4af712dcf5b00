// Resolves the one config: YAML file, then MIGRATE__* environment, then --set flags, validated once
// by core/config/schema.ts; errors name the exact path and where the bad value came from.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { z } from 'zod';
import { configSchema, type MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError, isMigrationError } from '../core/errors';
import { readYamlFile } from '../app/runtime/input-file';

export interface ConfigSources {
  /** --config; else $MIGRATE_CONFIG; else ./migrate.yaml when it exists. */
  readonly file?: string;
  readonly env: NodeJS.ProcessEnv;
  /** --set a.b=value, in order. */
  readonly sets: readonly string[];
  readonly cwd: string;
}

export interface ResolvedConfig {
  readonly config: MigrateConfig;
  readonly file: string | undefined;
}

type Tree = Record<string, unknown>;

export function loadConfig(src: ConfigSources): ResolvedConfig {
  const file = src.file ?? src.env.MIGRATE_CONFIG ?? (existsSync(path.join(src.cwd, 'migrate.yaml')) ? 'migrate.yaml' : undefined);
  const origin = new Map<string, string>();
  let tree: Tree = {};
  if (file !== undefined) {
    const abs = path.resolve(src.cwd, file);
    if (!existsSync(abs))
      throw new MigrationError(
        ErrorCode.CONFIG_NOT_FOUND,
        `config file ${abs} does not exist (from ${src.file ? '--config' : 'MIGRATE_CONFIG'})`,
      );
    tree = parseYamlFile(abs, src.file ? '--config' : 'MIGRATE_CONFIG');
  }
  for (const [k, v] of Object.entries(src.env)) {
    if (!k.startsWith('MIGRATE__') || v === undefined) continue;
    const p = resolvePath(k.slice('MIGRATE__'.length).split('__'), `environment ${k}`);
    setPath(tree, p, scalar(v));
    origin.set(p.join('.'), `environment ${k}`);
  }
  for (const s of src.sets) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new MigrationError(ErrorCode.USAGE, `--set expects key.path=value, got '${s}'`);
    const p = resolvePath(s.slice(0, eq).split('.'), `--set ${s.slice(0, eq)}`);
    setPath(tree, p, scalar(s.slice(eq + 1)));
    origin.set(p.join('.'), `--set ${s.slice(0, eq)}`);
  }
  const r = configSchema.safeParse(tree);
  if (!r.success) throw configError(r.error, origin, file);
  return { config: r.data, file };
}

/** A config file holds at most this much YAML (a real one is a few kB). */
export const MAX_CONFIG_BYTES = 1 << 20;

function parseYamlFile(abs: string, from: string): Tree {
  let doc: unknown;
  try {
    doc = readYamlFile(abs, { what: 'config file', code: ErrorCode.CONFIG_INVALID, maxBytes: MAX_CONFIG_BYTES });
  } catch (e) {
    if (!isMigrationError(e)) throw e;
    throw new MigrationError(e.code, `${e.message} (from ${from})`, e.context);
  }
  // A file given on purpose that configures nothing (empty, only comments) is a mistake.
  if (doc === null || doc === undefined)
    throw new MigrationError(ErrorCode.CONFIG_INVALID, `config file ${abs} is empty: it configures nothing (see migrate --help)`, {
      file: abs,
    });
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new MigrationError(ErrorCode.CONFIG_INVALID, `${abs}: the top level must be a mapping`);
  return doc as Tree;
}

function configError(err: z.ZodError, origin: Map<string, string>, file: string | undefined): MigrationError {
  const fallback = file ? `file ${file}` : 'defaults';
  // An unknown key is reported on its parent's path; its source is where the key itself came from
  // (a mistyped MIGRATE__SECTION__KEY is the environment's fault, not the file's).
  const issues = err.issues.flatMap((i) => {
    const p = i.path.map(String);
    if (i.code !== 'unrecognized_keys')
      return [{ path: p.join('.') || '(root)', message: i.message, from: origin.get(p.join('.')) ?? fallback }];
    return i.keys.map((k) => {
      const at = [...p, k].join('.');
      return {
        path: p.join('.') || '(root)',
        message: `unknown key "${k}"`,
        from: origin.get(at) ?? [...origin].find(([o]) => o.startsWith(`${at}.`))?.[1] ?? fallback,
      };
    });
  });
  const lines = issues.map((i) => `  ${i.path}: ${i.message} (from ${i.from})`);
  return new MigrationError(ErrorCode.CONFIG_INVALID, `invalid configuration:\n${lines.join('\n')}`, {
    paths: err.issues.map((i) => i.path.map(String).join('.')),
    sources: [...new Set(issues.map((i) => i.from))],
  });
}

/** Environment names are upper case; map each segment onto the schema's key, case-insensitively. */
/** Keys that would reach Object.prototype through a plain object: never a config key. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

function resolvePath(segments: readonly string[], from: string): string[] {
  const bad = segments.find((s) => FORBIDDEN_KEYS.has(s) || s === '');
  if (bad !== undefined)
    throw new MigrationError(
      ErrorCode.CONFIG_INVALID,
      `${from}: '${segments.join('.')}' is not a configuration key ('${bad}' is not allowed)`,
      {
        paths: [segments.join('.')],
      },
    );
  const out: string[] = [];
  let shape: Record<string, z.ZodType> | undefined = objectShape(configSchema);
  for (const seg of segments) {
    const key = shape ? (Object.keys(shape).find((k) => k.toLowerCase() === seg.toLowerCase()) ?? seg) : seg;
    out.push(key);
    shape = shape?.[key] ? objectShape(shape[key]) : undefined;
  }
  return out;
}

function objectShape(t: z.ZodType): Record<string, z.ZodType> | undefined {
  let cur: unknown = t;
  for (let i = 0; i < 5 && cur; i++) {
    const c = cur as { shape?: Record<string, z.ZodType>; unwrap?: () => unknown; def?: { innerType?: unknown } };
    if (c.shape) return c.shape;
    cur = typeof c.unwrap === 'function' ? c.unwrap() : c.def?.innerType;
  }
  return undefined;
}

function setPath(tree: Tree, p: readonly string[], value: unknown): void {
  let node = tree;
  p.forEach((k, i) => {
    if (i === p.length - 1) node[k] = value;
    else {
      const next = Object.hasOwn(node, k) ? node[k] : undefined;
      node[k] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {};
      node = node[k] as Tree;
    }
  });
}

/** `true`, `42`, `null` become typed values, as they would in the YAML file. */
function scalar(v: string): unknown {
  try {
    const parsed = parse(v) as unknown;
    return typeof parsed === 'object' && parsed !== null ? v : parsed;
  } catch {
    return v;
  }
}
