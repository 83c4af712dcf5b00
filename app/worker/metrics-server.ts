// The worker's Prometheus endpoint: `GET /metrics` answers the registry's text exposition
// (core/observe/metrics.ts); anything else is 404. A port that cannot be bound is CONFIG_INVALID.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { MetricsRegistry } from '../../core/observe/metrics';
import { EXPOSITION_CONTENT_TYPE } from '../../core/observe/metrics';

export interface MetricsServer {
  /** http://host:port/metrics, with the port actually bound (metrics.port 0: a free one). */
  readonly url: string;
  close(): Promise<void>;
}

export async function serveMetrics(registry: MetricsRegistry, host: string, port: number): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    res.writeHead(200, { 'content-type': EXPOSITION_CONTENT_TYPE }).end(registry.expose());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new MigrationError(
          ErrorCode.CONFIG_INVALID,
          `metrics.port: cannot serve metrics on ${host}:${port} (${e.code ?? e.message}): choose a free port (or metrics.host an address of this host)`,
          { paths: ['metrics.port'], host, port },
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
