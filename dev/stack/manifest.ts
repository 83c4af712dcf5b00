// Loads temporal-dev.yml, applies the environment (cache, state dir, port overrides) and builds the
// StackContext every component receives. Dev tooling.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import type { Component, StackContext, StackManifest } from './types';
import { StackError } from './util';

const portSchema = z.object({ default: z.number().int().min(1).max(65535), env: z.string().regex(/^HIM_[A-Z0-9_]+$/) }).strict();
const componentSchema = z
  .object({
    description: z.string(),
    version: z.union([z.string(), z.number()]).transform(String),
    dependsOn: z.array(z.string()).default([]),
    ports: z.record(z.string(), portSchema).default({}),
    settings: z.record(z.string(), z.unknown()).default({}),
    slowStart: z.boolean().default(false),
    goBuild: z.boolean().default(false),
  })
  .strict();
const manifestSchema = z
  .object({
    version: z.literal(1),
    credentials: z.record(z.string(), z.string()).default({}),
    components: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), componentSchema),
  })
  .strict();

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export function loadManifest(file = path.join(REPO_ROOT, 'temporal-dev.yml')): StackManifest {
  const parsed = manifestSchema.safeParse(parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n');
    throw new StackError('MANIFEST_INVALID', `${file} is invalid:\n${issues}`);
  }
  const m = parsed.data;
  for (const [name, c] of Object.entries(m.components)) {
    for (const dep of c.dependsOn) {
      if (!m.components[dep])
        throw new StackError('MANIFEST_INVALID', `${file}: components.${name}.dependsOn names unknown component '${dep}'`);
    }
  }
  return m;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HIM_CACHE_DIR) return path.resolve(env.HIM_CACHE_DIR);
  const base = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(base, 'hms-iceberg-migrator');
}

export function createContext(env: NodeJS.ProcessEnv = process.env, quiet = false): StackContext {
  const manifest = loadManifest();
  const offset = Number(env.HIM_PORT_OFFSET ?? '0');
  if (!Number.isInteger(offset) || offset < 0 || offset > 50_000) {
    throw new StackError('CONFIG_INVALID', `HIM_PORT_OFFSET must be an integer 0..50000, got '${env.HIM_PORT_OFFSET}'`);
  }
  const portDef = (component: string, name = 'main'): { default: number; env: string } => {
    const def = manifest.components[component]?.ports[name];
    if (!def) throw new StackError('MANIFEST_INVALID', `component ${component} has no port '${name}'`);
    return def;
  };
  return {
    repoRoot: REPO_ROOT,
    cacheDir: defaultCacheDir(env),
    stateDir: path.resolve(env.HIM_STATE_DIR ?? path.join(REPO_ROOT, '.stack')),
    manifest,
    port(component, name = 'main') {
      const def = portDef(component, name);
      const raw = env[def.env];
      if (raw !== undefined && raw !== '') {
        const p = Number(raw);
        if (!Number.isInteger(p) || p < 1 || p > 65535)
          throw new StackError('CONFIG_INVALID', `${def.env} must be a port number, got '${raw}'`);
        return p;
      }
      return def.default + offset;
    },
    portEnv(component, name = 'main') {
      return portDef(component, name).env;
    },
    log(msg) {
      if (!quiet) process.stderr.write(`[stack] ${msg}\n`);
    },
  };
}

/** Components live one per file in ./components/<name>.ts, exporting `component`. */
export function loadComponent(name: string): Component {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(path.join(__dirname, 'components', name)) as { component: Component };
  return mod.component;
}

/** Names in dependency order (dependencies first), restricted to `wanted` and their dependencies. */
export function startOrder(manifest: StackManifest, wanted?: readonly string[]): string[] {
  const names = wanted && wanted.length > 0 ? wanted : Object.keys(manifest.components);
  const out: string[] = [];
  const visit = (n: string, trail: string[]): void => {
    const c = manifest.components[n];
    if (!c) throw new StackError('UNKNOWN_COMPONENT', `unknown component '${n}'; known: ${Object.keys(manifest.components).join(', ')}`);
    if (out.includes(n)) return;
    if (trail.includes(n)) throw new StackError('MANIFEST_INVALID', `dependency cycle: ${[...trail, n].join(' -> ')}`);
    for (const d of c.dependsOn) visit(d, [...trail, n]);
    out.push(n);
  };
  for (const n of names) visit(n, []);
  return out;
}

/** Typed accessor for a component's settings. */
export function settings<T>(ctx: StackContext, component: string, schema: z.ZodType<T>): T {
  const raw = ctx.manifest.components[component]?.settings ?? {};
  const r = schema.safeParse(raw);
  if (!r.success) {
    throw new StackError(
      'MANIFEST_INVALID',
      `temporal-dev.yml components.${component}.settings: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return r.data;
}

export function versionOf(ctx: StackContext, component: string): string {
  const c = ctx.manifest.components[component];
  if (!c) throw new StackError('UNKNOWN_COMPONENT', `unknown component '${component}'`);
  return c.version;
}
