// The import fences are a tool, not a promise: prove that lint rejects each kind of violation in
// core/, workflows/, ops/, activities/, app/ and cli/ (and an over-long function where the ceiling holds), and accepts
// the allowed forms. Probe files are written into the real
// folders (type-aware lint needs them inside the tsconfig project), linted in ONE run of the real
// eslint binary with the repo's config (as `npm run lint` does), and always removed.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(__dirname, '..', '..', '..');

interface Probe {
  readonly label: string;
  readonly folder: 'core' | 'workflows' | 'ops' | 'activities' | 'engine' | 'cli' | 'app' | 'adapters' | 'adapters/formats';
  readonly code: string;
  /** Substring of the expected rule message, or null when the probe must lint clean of fence errors. */
  readonly expect: { rule: string; text: string } | null;
}

const restricted = (text: string): Probe['expect'] => ({ rule: 'no-restricted-imports', text });
const probes: Probe[] = [
  {
    label: 'core: node:fs',
    folder: 'core',
    code: "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
    expect: restricted('no Node built-ins'),
  },
  { label: 'core: bare fs', folder: 'core', code: "import fs from 'fs';\nexport const x = fs;\n", expect: restricted('no Node built-ins') },
  {
    label: 'core: S3 SDK',
    folder: 'core',
    code: "import { S3Client } from '@aws-sdk/client-s3';\nexport const x = S3Client;\n",
    expect: restricted('I/O libraries'),
  },
  {
    label: 'core: an adapter',
    folder: 'core',
    code: "import { probeHms } from '../adapters/hms/thrift/connection';\nexport const x = probeHms;\n",
    expect: restricted('must not import adapters'),
  },
  {
    label: 'workflows: pg',
    folder: 'workflows',
    code: "import { Client } from 'pg';\nexport const x = Client;\n",
    expect: restricted('I/O libraries'),
  },
  {
    label: 'workflows: child_process',
    folder: 'workflows',
    code: "import { spawn } from 'node:child_process';\nexport const x = spawn;\n",
    expect: restricted('no Node built-ins'),
  },
  {
    label: 'workflows: activity value import',
    folder: 'workflows',
    code: "import { createActivities } from '../activities/index';\nexport const x = createActivities;\n",
    expect: restricted('import type'),
  },
  {
    label: 'cli: an adapter',
    folder: 'cli',
    code: "import { probeHms } from '../adapters/hms/thrift/connection';\nexport const x = probeHms;\n",
    expect: restricted('only through app/'),
  },
  {
    label: 'cli: an activity',
    folder: 'cli',
    code: "import { createActivities } from '../activities/index';\nexport const x = createActivities;\n",
    expect: restricted('only through app/'),
  },
  {
    label: 'cli: the Temporal client',
    folder: 'cli',
    code: "import { Client } from '@temporalio/client';\nexport const x = Client;\n",
    expect: restricted('no I/O library'),
  },
  {
    label: 'cli: app/ and core/ are allowed',
    folder: 'cli',
    code: "import { runDoctor } from '../app/doctor/doctor';\nimport { ErrorCode } from '../core/errors';\nexport const x = [runDoctor, ErrorCode];\n",
    expect: null,
  },
  {
    label: 'core: engine',
    folder: 'core',
    code: "import { createEngine } from '../engine/engine';\nexport const x = createEngine;\n",
    expect: restricted('bottom layer'),
  },
  {
    label: 'workflows: engine, even as a type',
    folder: 'workflows',
    code: "import type { SyncOptions } from '../engine/sync-options';\nexport type E = SyncOptions;\n",
    expect: restricted('must not import engine'),
  },
  {
    label: 'activities: an adapter value',
    folder: 'activities',
    code: "import { writeResults } from '../adapters/results/parquet';\nexport const x = writeResults;\n",
    expect: restricted('must not import adapters'),
  },
  {
    label: 'activities: an adapter type',
    folder: 'activities',
    code: "import type { PostgresStateStore } from '../adapters/state/postgres';\nexport type S = PostgresStateStore;\n",
    expect: restricted('must not import adapters'),
  },
  {
    label: 'activities: an engine value',
    folder: 'activities',
    code: "import { createEngine } from '../engine/engine';\nexport const x = createEngine;\n",
    expect: restricted('`import type` only'),
  },
  {
    label: 'activities: the engine folder itself as a value',
    folder: 'activities',
    code: "import * as engine from '../engine';\nexport const x = engine;\n",
    expect: restricted('import type'),
  },
  {
    label: 'activities: engine/record-transition as a value (the operations record, not the shims)',
    folder: 'activities',
    code: "import { recordTransition } from '../engine/record-transition';\nexport const x = recordTransition;\n",
    expect: restricted('`import type` only'),
  },
  {
    label: 'activities: an I/O library',
    folder: 'activities',
    code: "import { Client } from 'pg';\nexport const x = Client;\n",
    expect: restricted('shims over ops/'),
  },
  {
    label: 'ops: engine/record-transition (the lifecycle recording function) as a value is allowed',
    folder: 'ops',
    code: "import { recordTransition } from '../engine/record-transition';\nexport const x = recordTransition;\n",
    expect: null,
  },
  {
    label: 'ops: an engine value',
    folder: 'ops',
    code: "import { createEngine } from '../engine/engine';\nexport const x = createEngine;\n",
    expect: restricted('`import type` only'),
  },
  {
    label: 'ops: Temporal',
    folder: 'ops',
    code: "import { Context } from '@temporalio/activity';\nexport const x = Context;\n",
    expect: restricted('knows no Temporal'),
  },
  {
    label: 'ops: activities/',
    folder: 'ops',
    code: "import { createActivities } from '../activities/index';\nexport const x = createActivities;\n",
    expect: restricted('layers above them'),
  },
  {
    label: 'ops: an adapter',
    folder: 'ops',
    code: "import { probeHms } from '../adapters/hms/thrift/connection';\nexport const x = probeHms;\n",
    expect: restricted('must not import adapters'),
  },
  {
    label: 'app: activities/ (the operations instead)',
    folder: 'app',
    code: "import { undoActivities } from '../activities/undo';\nexport const x = undoActivities;\n",
    expect: restricted('never activities/'),
  },
  {
    label: 'app: the operations are allowed',
    folder: 'app',
    code: "import { findOrphans } from '../ops/repair';\nexport const x = findOrphans;\n",
    expect: null,
  },
  {
    label: 'workflows: ops/',
    folder: 'workflows',
    code: "import type { Ctx } from '../ops/context';\nexport type C = Ctx;\n",
    expect: restricted('must not import ops/'),
  },
  {
    label: 'activities: type-only engine import + core ports are allowed',
    folder: 'activities',
    code: "import type { SyncOptions } from '../engine/sync-options';\nimport type { StateStore } from '../core/state/store';\nexport type D = { sync: SyncOptions; state: StateStore };\n",
    expect: null,
  },
  {
    label: 'app: an engine value',
    folder: 'app',
    code: "import { createEngine } from '../engine/engine';\nexport const x = createEngine;\n",
    expect: restricted('app/ must not import engine/'),
  },
  {
    label: 'app: an engine module, even as a type',
    folder: 'app',
    code: "import type { SyncOptions } from '../engine/sync-options';\nexport type O = SyncOptions;\n",
    expect: restricted('app/ must not import engine/'),
  },
  {
    label: 'app: the engine port and the ordered pool in core/ are allowed',
    folder: 'app',
    code: "import type { ConversionEngine } from '../core/engine-port/conversion-engine';\nimport { mapOrdered } from '../core/ordered-pool';\nexport type E = ConversionEngine;\nexport const m = mapOrdered;\n",
    expect: null,
  },
  {
    label: 'cli: engine/ outside the composition root',
    folder: 'cli',
    code: "import { createEngine } from '../engine/engine';\nexport const x = createEngine;\n",
    expect: restricted('only through app/'),
  },
  {
    label: 'engine: a function over 80 lines',
    folder: 'engine',
    code: `export function long(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(80)}  return n;\n}\n`,
    expect: { rule: 'max-lines-per-function', text: '' },
  },
  {
    label: 'engine: a type re-export of the port',
    folder: 'engine',
    code: "export type { ConversionEngine } from '../core/engine-port/conversion-engine';\n",
    expect: { rule: 'no-restricted-syntax', text: 're-exports nothing' },
  },
  {
    label: 'engine: a type imported from the port and used is allowed',
    folder: 'engine',
    code: "import type { ConversionEngine } from '../core/engine-port/conversion-engine';\nexport type E = Pick<ConversionEngine, 'convertTable'>;\n",
    expect: null,
  },
  {
    label: 'app: a function over 80 lines',
    folder: 'app',
    code: `export function long(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(80)}  return n;\n}\n`,
    expect: { rule: 'max-lines-per-function', text: '' },
  },
  {
    label: 'adapters: an activity',
    folder: 'adapters',
    code: "import { createActivities } from '../activities/index';\nexport const x = createActivities;\n",
    expect: restricted('layers above them'),
  },
  {
    label: 'adapters/formats: node:fs (decoders take bytes)',
    folder: 'adapters/formats',
    code: "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
    expect: restricted('decodes bytes'),
  },
  {
    label: 'adapters/formats: the object-read subsystem',
    folder: 'adapters/formats',
    code: "import { FooterThreads } from '../storage/object-read/footer-pool';\nexport const x = FooterThreads;\n",
    expect: restricted('decodes bytes'),
  },
  {
    label: 'adapters/formats: still fenced from the layers above',
    folder: 'adapters/formats',
    code: "import { createActivities } from '../../activities/index';\nexport const x = createActivities;\n",
    expect: restricted('layers above them'),
  },
  {
    label: 'adapters/formats: core/ (its storage ports included) and node:zlib are allowed',
    folder: 'adapters/formats',
    code: "import * as zlib from 'node:zlib';\nimport { ErrorCode } from '../../core/errors';\nimport type { ObjectStore } from '../../core/storage/object-store';\nexport const x = [zlib, ErrorCode];\nexport type S = ObjectStore;\n",
    expect: null,
  },
  {
    label: 'activities: app/',
    folder: 'activities',
    code: "import { createWorker } from '../app/worker/worker';\nexport const x = createWorker;\n",
    expect: restricted('layers above them'),
  },
  {
    label: 'core: app/',
    folder: 'core',
    code: "import { createWorker } from '../app/worker/worker';\nexport const x = createWorker;\n",
    expect: restricted('app/'),
  },
  {
    label: 'core: floating promise',
    folder: 'core',
    code: 'async function f(): Promise<number> { return 1; }\nexport function g(): void { f(); }\n',
    expect: { rule: '@typescript-eslint/no-floating-promises', text: '' },
  },
  { label: 'core: zod is allowed', folder: 'core', code: "import { z } from 'zod';\nexport const s = z.string();\n", expect: null },
  {
    label: 'workflows: type-only activity import + @temporalio/workflow are allowed',
    folder: 'workflows',
    code: "import type { createActivities } from '../activities/index';\nimport { sleep } from '@temporalio/workflow';\nexport type A = ReturnType<typeof createActivities>;\nexport const s = sleep;\n",
    expect: null,
  },
];

type Messages = Map<string, Array<{ ruleId: string | null; message: string }>>;

async function lintAll(): Promise<Messages> {
  const tag = `fence-probe-${process.pid}`;
  const files = probes.map((p, i) => path.join(root, p.folder, `${tag}-${i}.ts`));
  try {
    await Promise.all(
      probes.map(async (p, i) => {
        await fs.mkdir(path.join(root, p.folder), { recursive: true });
        await fs.writeFile(files[i] as string, p.code);
      }),
    );
    const out = await promisify(execFile)(path.join(root, 'node_modules', '.bin', 'eslint'), ['--format', 'json', ...files], {
      cwd: root,
      maxBuffer: 64 << 20,
    }).catch(
      (e: { stdout?: string }) => ({ stdout: e.stdout ?? '[]' }), // eslint exits 1 when it finds errors
    );
    const results = JSON.parse(out.stdout) as Array<{ filePath: string; messages: Array<{ ruleId: string | null; message: string }> }>;
    return new Map(results.map((r) => [r.filePath, r.messages]));
  } finally {
    await Promise.all(files.map((f) => fs.rm(f, { force: true })));
  }
}

describe('import fences', () => {
  let messages: Messages;
  beforeAll(async () => {
    messages = await lintAll();
  }, 180_000);

  it.each(probes.map((p, i) => [p.label, i] as const))('%s', (_label, i) => {
    const p = probes[i] as Probe;
    const file = path.join(root, p.folder, `fence-probe-${process.pid}-${i}.ts`);
    const got = messages.get(file);
    expect(got).toBeDefined(); // eslint really linted the probe
    const found = (got ?? []).filter((m) => m.ruleId === p.expect?.rule && m.message.includes(p.expect.text));
    if (p.expect) expect(found.length).toBeGreaterThan(0);
    else expect((got ?? []).filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === null)).toEqual([]);
  });
});
