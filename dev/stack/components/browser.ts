// A headless Chromium (Debian's chromium-headless-shell) for the tests that look at the Temporal Web
// UI as an owner does: dev/tools/ui-screenshot.ts drives it over the DevTools protocol. No server:
// it is "up" when installed and it answers --version. Dev tooling; never used by the product.
import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { Component } from '../types';
import { settings } from '../manifest';
import { aptEnsure } from '../installers';
import { run, StackError } from '../util';

const NAME = 'browser';
const Settings = z.object({ aptPackages: z.array(z.string()).min(1), binary: z.string() });

export const component: Component = {
  name: NAME,
  async install(ctx) {
    const s = settings(ctx, NAME, Settings);
    await aptEnsure(ctx, s.binary, s.aptPackages);
  },
  async start(ctx) {
    const h = await this.health(ctx);
    if (!h.ok) throw new StackError('START_FAILED', `${NAME}: ${h.detail}`);
  },
  async health(ctx) {
    const { binary } = settings(ctx, NAME, Settings);
    if (!existsSync(binary)) return { ok: false, detail: `not installed (${binary})` };
    try {
      const v = (await run(binary, ['--version'], { timeoutMs: 30_000 })).trim();
      return { ok: true, detail: v };
    } catch (e) {
      return { ok: false, detail: `${binary} --version failed: ${(e as Error).message}` };
    }
  },
  async stop() {
    // Nothing runs between tests: each screenshot starts and ends its own browser.
  },
  endpoints(ctx) {
    return { binary: settings(ctx, NAME, Settings).binary };
  },
};
