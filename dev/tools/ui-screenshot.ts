// A PNG of the Temporal Web UI's workflow list filtered by a visibility query, with the Migration*
// search attributes as columns, taken by a headless Chromium through the DevTools protocol (the
// column choice lives in the UI's localStorage, so it is set there before the list loads).
// Dev tooling: npx tsx dev/tools/ui-screenshot.ts "<query>" <out.png> [--width 1800] [--height 900]
// with HIM_TEMPORAL_UI (eval "$(npm run -s stack -- env)") and a Chromium on PATH
// (chromium-headless-shell or chromium; HIM_CHROMIUM names another). On Node 20 run it with
// NODE_OPTIONS=--experimental-websocket.
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

async function main(): Promise<void> {
  const [query, out] = process.argv.slice(2);
  const ui = process.env.HIM_TEMPORAL_UI;
  if (query === undefined || out === undefined || ui === undefined)
    throw new Error('usage: ui-screenshot.ts "<query>" <out.png> (with HIM_TEMPORAL_UI set)');
  const flag = (name: string, d: number): number => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : d;
  };
  const [width, height] = [flag('--width', 1800), flag('--height', 900)];
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
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
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
    process.stdout.write(`${out}\n`);
    close();
  } finally {
    chrome.kill('SIGTERM');
    await sleep(300);
    rmSync(profile, { recursive: true, force: true });
  }
}

void main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(1);
});
