// A PNG of the Temporal Web UI's workflow list filtered by a visibility query, with the Migration*
// search attributes as columns, taken by a headless Chromium through the DevTools protocol (the
// column choice lives in the UI's localStorage, so it is set there before the list loads).
// Dev tooling: npx tsx dev/tools/ui-screenshot.ts "<query>" <out.png> [--text <out.txt>] [--width 1800]
// [--height 900] with HIM_TEMPORAL_UI (eval "$(npm run -s stack -- env)") and the stack's `browser`
// component (HIM_CHROMIUM; else chromium-headless-shell on PATH). `--text` also writes the page's
// text as the UI rendered it (what test/e2e/temporal-ui-truth.test.ts asserts on). On Node 20 run
// it with NODE_OPTIONS=--experimental-websocket.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const COLUMNS = ['Status', 'Workflow ID', 'MigrationStatus', 'MigrationTable', 'MigrationWave', 'MigrationTeam', 'Type'];
/** The UI's key for the list's columns per namespace (temporalio/ui `configurable-table-columns`). */
const COLUMNS_KEY = 'namespace-workflow-table-columns';

type Send = (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;

async function devtools(url: string): Promise<{ send: Send; close: () => void }> {
  const WS = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (WS === undefined) throw new Error('no WebSocket in this Node: run with NODE_OPTIONS=--experimental-websocket');
  const ws = new WS(url);
  await new Promise((ok, fail) => {
    ws.onopen = ok;
    ws.onerror = fail;
  });
  let id = 0;
  const waiting = new Map<number, (r: Record<string, unknown>) => void>();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: Record<string, unknown> };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result ?? {});
  };
  const send: Send = (method, params = {}) =>
    new Promise((ok) => {
      waiting.set(++id, ok);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Shot {
  readonly ui: string;
  readonly query: string;
  readonly out: string;
  readonly width: number;
  readonly height: number;
}

/** The workflow list filtered by `query`, as a PNG at `out`; returns the page's rendered text. */
export async function shootWorkflowList(o: Shot): Promise<string> {
  const { ui, query, out, width, height } = o;
  const profile = mkdtempSync(path.join(os.tmpdir(), 'him-ui-shot-'));
  const chrome = spawn(
    process.env.HIM_CHROMIUM ?? 'chromium-headless-shell',
    [
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      `--window-size=${width},${height}`,
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    // Its own process group: the shell's helper processes go with it (a SIGTERM to the shell alone
    // left it running, holding the stderr pipe and this process open).
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const exited = new Promise<void>((r) => chrome.once('exit', () => r()));
  try {
    const browser = await new Promise<string>((ok, fail) => {
      let err = '';
      chrome.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
        if (m) ok(m[1] as string);
      });
      chrome.on('exit', (code) => fail(new Error(`chromium exited (${code}): ${err.slice(-2000)}`)));
    });
    const port = new URL(browser).port;
    const pages = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { type: string; webSocketDebuggerUrl: string }[];
    const page = pages.find((p) => p.type === 'page');
    if (page === undefined) throw new Error('no page target');
    const { send, close } = await devtools(page.webSocketDebuggerUrl);
    const text = async (): Promise<string> =>
      (
        (await send('Runtime.evaluate', { expression: 'document.body ? document.body.innerText : ""', returnByValue: true })).result as {
          value: string;
        }
      ).value;
    await send('Page.navigate', { url: `${ui}/namespaces/default/workflows` });
    await sleep(2000);
    const columns = JSON.stringify({ default: COLUMNS.map((label) => ({ label })) });
    await send('Runtime.evaluate', { expression: `localStorage.setItem(${JSON.stringify(COLUMNS_KEY)}, ${JSON.stringify(columns)})` });
    await send('Page.navigate', { url: `${ui}/namespaces/default/workflows?query=${encodeURIComponent(query)}` });
    // The list is loaded once the count above it is shown.
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !/\d+ Workflows?\b/.test(await text())) await sleep(500);
    await sleep(1000);
    const shot = (await send('Page.captureScreenshot', { format: 'png' })) as { data: string };
    writeFileSync(out, Buffer.from(shot.data, 'base64'));
    const rendered = await text();
    close();
    return rendered;
  } finally {
    try {
      process.kill(-(chrome.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
    await Promise.race([exited, sleep(5000)]);
    chrome.stderr.destroy();
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * The rows of the list as the UI rendered them (its text, columns in COLUMNS order: a row is a
 * line of tab-separated cells after the checkbox): workflow id → MigrationStatus.
 */
export function listedStatuses(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const cells = line.split('\t');
    // '' (the checkbox cell), Workflow ID, MigrationStatus, MigrationTable, MigrationWave, MigrationTeam, Type
    if (cells.length !== 7 || cells[0] !== '' || !/Workflow$/.test(cells[6] ?? '')) continue;
    out[cells[1] as string] = cells[2] as string;
  }
  return out;
}

async function main(): Promise<void> {
  const [query, out] = process.argv.slice(2);
  const ui = process.env.HIM_TEMPORAL_UI;
  if (query === undefined || out === undefined || ui === undefined)
    throw new Error('usage: ui-screenshot.ts "<query>" <out.png> [--text <out.txt>] (with HIM_TEMPORAL_UI set)');
  const flag = (name: string): string | undefined => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const rendered = await shootWorkflowList({
    ui,
    query,
    out,
    width: Number(flag('--width') ?? 1800),
    height: Number(flag('--height') ?? 900),
  });
  const textFile = flag('--text');
  if (textFile !== undefined) writeFileSync(textFile, rendered);
  process.stdout.write(`${out}\n`);
}

if (require.main === module)
  void main().catch((e: unknown) => {
    process.stderr.write(`${String(e)}\n`);
    process.exit(1);
  });
