// `npm run stack -- up|down|status|logs|install|env [components...]`: the local stack of real
// components for the demo and the tests. Dev tooling; the product never requires it.
import { readFileSync, existsSync } from 'node:fs';
import { createContext } from './manifest';
import { down, installAll, status, up } from './stack';
import { logFile, StackError } from './util';
import { stackEnv } from './env';

const USAGE = `usage: npm run stack -- <command> [components...] [--json]

commands:
  up [c...]        install (once, into the cache) and start components and their dependencies; idempotent;
                   no names = every component
  down [c...]      stop the components this stack started (all by default)
  status [--json]  version, ports, pid and health of each component; exit 1 if any is down
  logs <c> [-n N]  the last N (default 80) lines of a component's log
  install [c...]   install into the cache (components and their dependencies) without starting
  env [--json]     connection settings of the stack as shell exports (or JSON)

environment:
  HIM_STATE_DIR    runtime state (data, pids, logs); default <repo>/.stack
  HIM_CACHE_DIR    install cache; default \${XDG_CACHE_HOME:-~/.cache}/hms-iceberg-migrator
  HIM_PORT_OFFSET  added to every default port (run two stacks side by side)
  HIM_STACK_JOBS   installs/starts running at once (default 3; Go builds one at a time regardless)
  HIM_<C>_PORT     move one component's port (see temporal-dev.yml)

examples:
  npm run stack -- up
  npm run stack -- up temporal s3
  HIM_STATE_DIR=/tmp/s2 HIM_PORT_OFFSET=100 npm run stack -- up postgres
  npm run stack -- status --json
`;

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  const [cmd, ...rest] = args;
  const ctx = createContext(process.env, json && cmd !== 'up');
  switch (cmd) {
    case 'up':
      await up(ctx, rest);
      printStatus(await status(ctx, rest), false);
      return 0;
    case 'down':
      await down(ctx, rest);
      return 0;
    case 'install':
      await installAll(ctx, rest);
      return 0;
    case 'status': {
      const s = await status(ctx, rest);
      printStatus(s, json);
      return s.every((c) => c.health.ok) ? 0 : 1;
    }
    case 'logs': {
      const nIdx = rest.indexOf('-n');
      const n = nIdx >= 0 ? Number(rest[nIdx + 1]) : 80;
      const name = rest.find((r, i) => i !== nIdx && i !== nIdx + 1);
      if (!name) throw new StackError('USAGE', 'logs needs a component name');
      const f = logFile(ctx, name);
      if (!existsSync(f)) throw new StackError('NO_LOG', `no log for ${name} at ${f}`);
      process.stdout.write(readFileSync(f, 'utf8').split('\n').slice(-n).join('\n') + '\n');
      return 0;
    }
    case 'env': {
      const env = stackEnv(ctx);
      process.stdout.write(
        json
          ? JSON.stringify(env, null, 2) + '\n'
          : Object.entries(env)
              .map(([k, v]) => `export ${k}='${v}'`)
              .join('\n') + '\n',
      );
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      process.stderr.write(`unknown command '${cmd}'\n\n${USAGE}`);
      return 2;
  }
}

function printStatus(rows: Awaited<ReturnType<typeof status>>, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  const table = rows.map((r) => [
    r.name,
    r.version,
    Object.values(r.ports).join(',') || '-',
    r.pid === null ? '-' : String(r.pid),
    r.health.ok ? 'healthy' : 'DOWN',
    r.health.detail,
  ]);
  const head = ['COMPONENT', 'VERSION', 'PORT', 'PID', 'HEALTH', 'DETAIL'];
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? '').length)));
  for (const row of [head, ...table])
    process.stdout.write(row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ') + '\n');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    const err = e as Error & { code?: string };
    process.stderr.write(`stack: ${err.code ? `[${err.code}] ` : ''}${err.message}\n`);
    process.exit(1);
  },
);
