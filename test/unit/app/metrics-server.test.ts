// app/worker/metrics-server.ts on the loopback: GET /metrics answers the registry's exposition with the
// Prometheus content type, other paths 404, and a port already bound is CONFIG_INVALID.
import { MetricsRegistry } from '../../../core/observe/metrics';
import { ErrorCode } from '../../../core/errors';
import { serveMetrics } from '../../../app/worker/metrics-server';

describe('serveMetrics', () => {
  it('serves the current exposition on GET /metrics (a free port with 0) and refuses a bound port', async () => {
    const r = new MetricsRegistry();
    const c = r.counter('him_t_total', 'T.');
    const s = await serveMetrics(r, '127.0.0.1', 0);
    try {
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      c.inc({}, 4);
      const res = await fetch(s.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(await res.text()).toContain('\nhim_t_total 4\n');
      expect((await fetch(s.url.replace('/metrics', '/'))).status).toBe(404);
      const port = Number(new URL(s.url).port);
      await expect(serveMetrics(r, '127.0.0.1', port)).rejects.toMatchObject({
        code: ErrorCode.CONFIG_INVALID,
        context: { paths: ['metrics.port'] },
      });
    } finally {
      await s.close();
    }
  });
});
