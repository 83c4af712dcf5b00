// The HMS connection's failure modes, against local sockets that misbehave on purpose: nothing
// listening, a server that never answers, a server that hangs up, a SASL-only server, and a real
// Thrift exception. Every failure is a MigrationError with a code.
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { openHms, parseThriftUri, probeHms } from '../../../adapters/hms/thrift/connection';
import type { MigrationError } from '../../../core/errors';
import { testStack } from '../../helpers/stack-env';

async function listen(onSocket: (s: Socket) => void): Promise<{ server: Server; uri: string }> {
  const server = createServer(onSocket);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, uri: `thrift://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function freePortUri(): Promise<string> {
  const { server, uri } = await listen(() => undefined);
  await new Promise((r) => server.close(r));
  return uri;
}

const failure = (p: Promise<unknown>): Promise<MigrationError> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: MigrationError) => e,
  );

describe('HMS Thrift connection', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterAll(async () => {
    sockets.forEach((s) => s.destroy());
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('parses thrift URIs', () => {
    expect(parseThriftUri('thrift://hms.example:9083')).toEqual({ host: 'hms.example', port: 9083 });
    expect(parseThriftUri('thrift://[::1]:19083/')).toEqual({ host: '::1', port: 19083 });
    expect(parseThriftUri('thrift://h')).toEqual({ host: 'h', port: 9083 });
    expect(() => parseThriftUri('http://h:9083')).toThrow(/not a thrift/);
  });

  it('nothing listening → HMS_UNREACHABLE', async () => {
    const e = await failure(probeHms(await freePortUri(), 2000));
    expect(e.code).toBe('HMS_UNREACHABLE');
    expect(e.message).toMatch(/ECONNREFUSED/);
  });

  it('a server that accepts but never answers → HMS_TIMEOUT, then the connection is unusable', async () => {
    const { server, uri } = await listen((s) => sockets.push(s));
    servers.push(server);
    const conn = await openHms(uri, { connectTimeoutMs: 2000, callTimeoutMs: 300 });
    const t0 = Date.now();
    const e = await failure(conn.call('get_all_databases', (c) => c.get_all_databases()));
    expect(e.code).toBe('HMS_TIMEOUT');
    expect(e.context.method).toBe('get_all_databases');
    expect(e.retryable).toBe(true);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect((await failure(conn.call('get_all_databases', (c) => c.get_all_databases()))).code).toBe('HMS_UNREACHABLE');
    conn.close();
  });

  it('a server that hangs up mid-call → HMS_UNREACHABLE (as HMS does when a handler dies)', async () => {
    const { server, uri } = await listen((s) => s.once('data', () => s.destroy()));
    servers.push(server);
    const conn = await openHms(uri, { connectTimeoutMs: 2000, callTimeoutMs: 5000 });
    const e = await failure(conn.call('get_all_databases', (c) => c.get_all_databases()));
    expect(e.code).toBe('HMS_UNREACHABLE');
    conn.close();
  });

  it('a SASL-only server (answers the binary header with a SASL ERROR frame, then closes) → HMS_UNSUPPORTED_AUTH', async () => {
    // What TSaslServerTransport does with a plain binary message: status byte 0x80 is not a SASL
    // status, so it sends ERROR (4) + length + message and hangs up.
    const { server, uri } = await listen((s) =>
      s.once('data', () => {
        const msg = Buffer.from('Invalid status -128');
        const head = Buffer.alloc(5);
        head.writeUInt8(4, 0);
        head.writeUInt32BE(msg.length, 1);
        s.end(Buffer.concat([head, msg]));
      }),
    );
    servers.push(server);
    const e = await failure(probeHms(uri, 3000));
    expect(e.code).toBe('HMS_UNSUPPORTED_AUTH');
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('Invalid status -128');
    expect(e.message).toMatch(/SASL/);
  });

  it('auth: sasl in the options fails at once with HMS_UNSUPPORTED_AUTH', async () => {
    const e = await failure(openHms('thrift://127.0.0.1:1', { connectTimeoutMs: 1000, callTimeoutMs: 1000, auth: 'kerberos' }));
    expect(e.code).toBe('HMS_UNSUPPORTED_AUTH');
  });

  it('a Thrift exception from a real HMS → HMS_NOT_FOUND naming the exception', async () => {
    const conn = await openHms(testStack().HIM_HMS_PG_URI as string, { connectTimeoutMs: 5000, callTimeoutMs: 60_000 });
    try {
      const e = await failure(conn.call('get_database', (c) => c.get_database('no_such_database_for_sure')));
      expect(e.code).toBe('HMS_NOT_FOUND');
      expect(e.retryable).toBe(false);
      expect(e.context.thriftType).toBe('NoSuchObjectException');
      // The connection stays usable after an application-level exception.
      expect(await conn.call('get_all_databases', (c) => c.get_all_databases())).toContain('default');
    } finally {
      conn.close();
    }
  });
});
