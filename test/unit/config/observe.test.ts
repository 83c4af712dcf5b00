// `logging:` and `metrics:` (core/config/observe.ts): defaults, the worker's flags over the config,
// and a bad port, host, level or format refused as CONFIG_INVALID naming the path and its source.
import { resolveObserve } from '../../../core/config/observe';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { loadConfig } from '../../../cli/config';

function refusal(f: () => unknown): MigrationError {
  try {
    f();
  } catch (e) {
    if (e instanceof MigrationError) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('resolveObserve', () => {
  it('defaults: json at info on stderr, no metrics endpoint', () => {
    expect(resolveObserve({}, {})).toEqual({ logging: { level: 'info', format: 'json' } });
  });

  it('flags win over the config; the host defaults to the loopback', () => {
    const o = resolveObserve(
      { logging: { level: 'warn', format: 'text' }, metrics: { port: 9464, sdkPort: 9465 } },
      { logLevel: 'debug', metricsPort: '0', logFile: '/tmp/w.log' },
    );
    expect(o).toEqual({
      logging: { level: 'debug', format: 'text', file: '/tmp/w.log' },
      metrics: { port: 0, host: '127.0.0.1', sdkPort: 9465 },
    });
    expect(resolveObserve({}, { metricsHost: '0.0.0.0', metricsPort: '9100' }).metrics).toEqual({ host: '0.0.0.0', port: 9100 });
  });

  it.each([
    [{ metricsPort: '70000' }, 'metrics.port', '--metrics-port'],
    [{ metricsPort: 'http' }, 'metrics.port', '--metrics-port'],
    [{ metricsPort: '-1' }, 'metrics.port', '--metrics-port'],
    [{ logLevel: 'verbose' }, 'logging.level', '--log-level'],
    [{ logFormat: 'xml' }, 'logging.format', '--log-format'],
    [{ metricsHost: 'a b', metricsPort: '1' }, 'metrics.host', '--metrics-host'],
  ])('flags %j: CONFIG_INVALID at %s, from %s', (flags, path, flag) => {
    const e = refusal(() => resolveObserve({}, flags));
    expect(e.code).toBe(ErrorCode.CONFIG_INVALID);
    expect(e.message).toContain(`${path}:`);
    expect(e.message).toContain(`(from ${flag})`);
    expect(e.context.paths).toEqual([path]);
  });

  it('a bad value in the config itself names the config; the SDK port alone is a valid section', () => {
    const e = refusal(() => resolveObserve({ logging: { level: 'loud' } }, {}));
    expect(e.message).toMatch(/logging\.level: .*\(from the config\)/);
    expect(refusal(() => resolveObserve({ metrics: { sdkPort: 0 } }, {})).context.paths).toEqual(['metrics.sdkPort']);
    expect(resolveObserve({ metrics: { sdkPort: 9465 } }, {}).metrics).toEqual({ host: '127.0.0.1', sdkPort: 9465 });
  });
});

describe('loadConfig: the sections are part of the one schema', () => {
  const load = (sets: string[]) => loadConfig({ env: {}, sets, cwd: '/nonexistent' });

  it('accepts them from --set / MIGRATE__* with their defaults', () => {
    expect(load(['metrics.port=9464', 'logging.level=warn']).config).toMatchObject({
      metrics: { port: 9464, host: '127.0.0.1' },
      logging: { level: 'warn', format: 'json' },
    });
    const env = loadConfig({
      env: { MIGRATE__METRICS__PORT: '9100', MIGRATE__LOGGING__FORMAT: 'text' },
      sets: [],
      cwd: '/nonexistent',
    }).config;
    expect(env).toMatchObject({ metrics: { port: 9100 }, logging: { format: 'text' } });
  });

  it.each([
    [['metrics.port=65536'], 'metrics.port'],
    [['logging.level=chatty'], 'logging.level'],
    [['metrics.port=1', 'metrics.nope=1'], 'metrics'],
  ])('%j: CONFIG_INVALID at %s', (sets, path) => {
    const e = refusal(() => load(sets));
    expect(e.code).toBe(ErrorCode.CONFIG_INVALID);
    expect(e.context.paths).toEqual([path]);
  });
});
