// app/worker/log.ts: the level filter, the file sink (appended), the SDK's Logger over it, and the
// Runtime options that forward the Rust core's lines into it and place the SDK's metrics endpoint.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openWorkerLog, runtimeOptions, sdkLogger } from '../../../app/worker/log';

describe('openWorkerLog', () => {
  it('writes only lines at or above its level, one JSON object each; the SDK logger goes through it', () => {
    const out: string[] = [];
    const log = openWorkerLog({ level: 'warn', format: 'json' }, (s) => out.push(s));
    log.line('info', 'dropped');
    log.line('error', 'kept', { table: 'd.t' });
    const sdk = sdkLogger(log);
    sdk.debug('dropped too');
    sdk.warn('Activity failed', { activityType: 'registerTable', attempt: 3 });
    expect(out.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      { ts: expect.any(String), level: 'error', msg: 'kept', table: 'd.t' },
      { ts: expect.any(String), level: 'warn', msg: 'Activity failed', src: 'temporal', activityType: 'registerTable', attempt: 3 },
    ]);
  });

  it('logging.file: appends (what was there stays), nothing on the fallback sink', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'him-log-'));
    try {
      const file = path.join(dir, 'w.log');
      writeFileSync(file, 'earlier\n');
      const stderr: string[] = [];
      const log = openWorkerLog({ level: 'info', format: 'text', file }, (s) => stderr.push(s));
      log.line('info', 'one');
      log.line('warn', 'two');
      const lines = readFileSync(file, 'utf8').split('\n');
      expect(lines[0]).toBe('earlier');
      expect(lines.slice(1)).toEqual([expect.stringMatching(/^\S+Z INFO one$/), expect.stringMatching(/^\S+Z WARN two$/), '']);
      expect(stderr).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('runtimeOptions', () => {
  const log = (level: 'info' | 'debug') => openWorkerLog({ level, format: 'json' }, () => undefined);

  it("forwards the core's lines to our logger (WARN at info, DEBUG at debug); no SDK endpoint without sdkPort", () => {
    const info = runtimeOptions(log('info'), { logging: { level: 'info', format: 'json' } });
    expect(info.telemetryOptions?.logging).toMatchObject({ forward: {} });
    expect(String((info.telemetryOptions?.logging as { filter: string }).filter)).toContain('temporalio_sdk_core=WARN');
    expect(info.telemetryOptions?.metrics).toBeUndefined();
    const debug = runtimeOptions(log('debug'), { logging: { level: 'debug', format: 'json' } });
    expect(String((debug.telemetryOptions?.logging as { filter: string }).filter)).toContain('temporalio_sdk_core=DEBUG');
  });

  it('metrics.sdkPort: the SDK binds its Prometheus endpoint on metrics.host (an IPv6 host bracketed)', () => {
    const v4 = runtimeOptions(log('info'), { logging: { level: 'info', format: 'json' }, metrics: { host: '127.0.0.1', sdkPort: 9465 } });
    expect(v4.telemetryOptions?.metrics).toEqual({ prometheus: { bindAddress: '127.0.0.1:9465' } });
    const v6 = runtimeOptions(log('info'), {
      logging: { level: 'info', format: 'json' },
      metrics: { host: '::1', port: 9464, sdkPort: 9465 },
    });
    expect(v6.telemetryOptions?.metrics).toEqual({ prometheus: { bindAddress: '[::1]:9465' } });
  });
});
