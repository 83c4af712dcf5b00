// The composition root: the one module that constructs the conversion engine (engine/engine.ts
// `createEngine()`, the port core/engine-port/conversion-engine.ts over this repository's adapters).
// A command loads it inside its action, as it loads its app/ module, and hands the engine to app/
// (the worker's assembly, validate, sync --direct, table, status, rollback --dry-run); app/ never
// imports engine/ (eslint.config.mjs, docs/architecture.md "Import fences").
import type { ConversionEngine } from '../core/engine-port/conversion-engine';
import { createEngine } from '../engine/engine';

/** The engine the product runs with. */
export function conversionEngine(): ConversionEngine {
  return createEngine();
}
