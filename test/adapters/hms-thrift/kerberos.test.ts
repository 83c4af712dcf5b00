// The SASL/GSSAPI transport (adapters/hms/thrift/sasl.ts, gssapi.ts) against the stack's KDC and
// Kerberized HMS (hms-krb), and against local sockets that misbehave on purpose: a pool of
// authenticated connections used side by side, the identity a handshake establishes, a hive catalog
// whose Thrift connections authenticate, `_HOST`, the SASL frame, and each way the negotiation can
// fail (an ERROR frame mid-way, silence, a reply that is no SASL frame) as a coded error within the
// connect deadline. SASL quality of protection: hms-krb offers authentication and privacy; privacy
// carries reads and writes of more than one server buffer and, seen through a TCP relay, puts no
// name on the wire, while authentication does; integrity is refused naming the offer. libgssapi reads the realm from KRB5_CONFIG in the real process environment, which
// the global setup sets (test files see a copy of it).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo, Server, Socket } from 'node:net';
import { openHms, probeHms } from '../../../adapters/hms/thrift/connection';
import { HmsCaller } from '../../../adapters/hms/thrift/client';
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../../adapters/hms/thrift/writer';
import { SaslStatus, encodeFrame, resolveServicePrincipal, speaksSasl } from '../../../adapters/hms/thrift/sasl';
import { openCatalog } from '../../../app/runtime/runtime';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';
import { configSchema } from '../../../core/config/schema';
import type { MigrationError } from '../../../core/errors';
import { TSX, run } from '../../helpers/cli';
import { testStack, uniqueName } from '../../helpers/stack-env';
import { createFixture, dropFixture, fixture } from './fixture';
import type { Fixture } from './fixture';

const env = testStack();
const KRB_URI = env.HIM_HMS_KRB_URI as string;
const kerberos = {
  servicePrincipal: `hive/_HOST@${env.HIM_KRB_REALM}`,
  clientPrincipal: env.HIM_KRB_CLIENT_PRINCIPAL as string,
  keytabFile: env.HIM_KRB_CLIENT_KEYTAB as string,
};

const failure = (p: Promise<unknown>): Promise<MigrationError> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: MigrationError) => e,
  );

async function listen(onSocket: (s: Socket) => void): Promise<{ server: Server; uri: string; port: number }> {
  const server = createServer(onSocket);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, uri: `thrift://localhost:${port}`, port };
}

describe('HMS over SASL/GSSAPI (Kerberos)', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterAll(async () => {
    sockets.forEach((s) => s.destroy());
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('frames are status byte + 4-byte big-endian length + payload; _HOST becomes the lower-cased host', () => {
    expect(encodeFrame(SaslStatus.START, Buffer.from('GSSAPI')).toString('hex')).toBe(`0100000006${Buffer.from('GSSAPI').toString('hex')}`);
    expect(resolveServicePrincipal('hive/_HOST@EXAMPLE.COM', 'HMS-1.Example.com')).toBe('hive/hms-1.example.com@EXAMPLE.COM');
    expect(resolveServicePrincipal('hive/hms.example.com@EXAMPLE.COM', 'other')).toBe('hive/hms.example.com@EXAMPLE.COM');
  });

  it('a handshake establishes who we are: client principal, service principal, a ticket good for hours', async () => {
    const conn = await openHms(KRB_URI, { connectTimeoutMs: 5000, callTimeoutMs: 10_000, kerberos });
    try {
      expect(conn.identity).toMatchObject({
        method: 'kerberos',
        clientPrincipal: env.HIM_KRB_CLIENT_PRINCIPAL,
        servicePrincipal: env.HIM_KRB_SERVICE_PRINCIPAL,
        credentialSource: 'keytab',
      });
      expect(Date.parse(conn.identity?.ticketExpiresAt ?? '')).toBeGreaterThan(Date.now() + 3_600_000);
      // Framed Thrift after the negotiation: several calls on one connection.
      expect(await conn.call('get_all_databases', (c) => c.get_all_databases())).toContain('default');
      expect(await conn.call('getVersion', (c) => c.getVersion())).toBe('4.0.1');
    } finally {
      conn.close();
    }
  });

  it('a pool of 4 authenticated connections serves 16 reads side by side', async () => {
    const reader = new ThriftHmsReader({ uri: KRB_URI, kerberos, poolSize: 4, callsPerSecond: 0 });
    try {
      const all = await Promise.all(Array.from({ length: 16 }, () => reader.listDatabases()));
      expect(new Set(all.map((d) => d.join(',')))).toEqual(new Set([all[0]?.join(',')]));
      expect(all[0]).toContain('default');
    } finally {
      await reader.close();
    }
  });

  it("a hive catalog's Thrift connections authenticate with hms.thrift.kerberos", async () => {
    const config = configSchema.parse({
      hms: { thrift: { uri: KRB_URI, kerberos } },
      catalog: { name: 'krb-hive', type: 'hive', uri: KRB_URI, namespacePrefix: 'x_' },
      storage: { s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true } },
    });
    const catalog = await openCatalog(config, env);
    try {
      expect(await catalog.namespaceExists(['default'])).toBe(true);
    } finally {
      await catalog.close?.();
    }
  });

  it('a long-lived process keeps authenticating: tickets expire (4 s lifetime) and come again from the keytab', async () => {
    const conf = path.join(mkdtempSync(path.join(os.tmpdir(), 'him-krb-')), 'krb5.conf');
    writeFileSync(conf, readFileSync(env.HIM_KRB5_CONFIG as string, 'utf8').replace(/ticket_lifetime = .*/, 'ticket_lifetime = 4s'));
    const script = path.join(__dirname, 'kerberos-probe-twice.ts');
    const r = await run(TSX, [script, KRB_URI, '6000'], 60_000, { KRB5_CONFIG: conf });
    expect(r.code).toBe(0);
    const [first, second] = JSON.parse(r.stdout) as [{ ticketExpiresAt: string }, { ticketExpiresAt: string }];
    // The first ticket has expired by now; the second probe authenticated with a new one.
    expect(Date.parse(first.ticketExpiresAt)).toBeLessThan(Date.now());
    expect(Date.parse(second.ticketExpiresAt) - Date.parse(first.ticketExpiresAt)).toBeGreaterThanOrEqual(5000);
  }, 60_000);

  it('a keytab that cannot be read → HMS_KERBEROS_NO_TICKET naming the file, before any network call', async () => {
    const e = await failure(probeHms(KRB_URI, 5000, { ...kerberos, keytabFile: '/nonexistent/migrator.keytab' }));
    expect(e.code).toBe('HMS_KERBEROS_NO_TICKET');
    expect(e.message).toContain('the keytab /nonexistent/migrator.keytab cannot be read (ENOENT)');
    expect(e.message).toContain(`'klist -kt /nonexistent/migrator.keytab'`);
  });

  it('the server answers ERROR mid-negotiation → HMS_KERBEROS_AUTH_FAILED with its message', async () => {
    const { server, uri } = await listen((s) =>
      s.once('data', () => s.end(encodeFrame(SaslStatus.ERROR, Buffer.from('GSS initiate failed')))),
    );
    servers.push(server);
    const e = await failure(probeHms(uri, 3000, { ...kerberos, servicePrincipal: env.HIM_KRB_SERVICE_PRINCIPAL as string }));
    expect(e.code).toBe('HMS_KERBEROS_AUTH_FAILED');
    expect(e.retryable).toBe(false);
    expect(e.message).toContain("the metastore refused it: 'GSS initiate failed'");
  });

  it('a server that never answers the SASL start → HMS_KERBEROS_AUTH_FAILED within the connect deadline', async () => {
    const { server, uri } = await listen((s) => sockets.push(s));
    servers.push(server);
    const t0 = Date.now();
    const e = await failure(probeHms(uri, 800, { ...kerberos, servicePrincipal: env.HIM_KRB_SERVICE_PRINCIPAL as string }));
    expect(e.code).toBe('HMS_KERBEROS_AUTH_FAILED');
    expect(e.message).toContain('gave no answer within 800 ms');
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('a reply that is no SASL frame → HMS_KERBEROS_AUTH_FAILED', async () => {
    const { server, uri } = await listen((s) => s.once('data', () => s.write(Buffer.from('80010002000000', 'hex'))));
    servers.push(server);
    const e = await failure(probeHms(uri, 3000, { ...kerberos, servicePrincipal: env.HIM_KRB_SERVICE_PRINCIPAL as string }));
    expect(e.code).toBe('HMS_KERBEROS_AUTH_FAILED');
    expect(e.message).toContain('not a SASL frame');
  });

  it('speaksSasl: yes for hms-krb, no for the plain HMS and a silent server', async () => {
    const port = (uri: string): number => Number(/:(\d+)$/.exec(uri)?.[1]);
    expect(await speaksSasl('127.0.0.1', port(KRB_URI), 3000)).toBe(true);
    expect(await speaksSasl('127.0.0.1', port(env.HIM_HMS_PG_URI as string), 3000)).toBe(false);
    const { server, port: silent } = await listen((s) => sockets.push(s));
    servers.push(server);
    expect(await speaksSasl('127.0.0.1', silent, 300)).toBe(false);
  });
});

/** A TCP relay to the metastore that keeps every byte it passes, both ways. */
async function relay(target: string): Promise<{ uri: string; wire: () => Buffer; close: () => Promise<void> }> {
  const port = Number(/:(\d+)$/.exec(target)?.[1]);
  const seen: Buffer[] = [];
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.on('data', (d: Buffer) => {
        seen.push(d);
        to.write(d);
      });
      from.on('close', () => to.destroy());
      from.on('error', () => to.destroy());
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    uri: `thrift://localhost:${(server.address() as AddressInfo).port}`,
    wire: () => Buffer.concat(seen),
    close: async () => {
      open.forEach((s) => s.destroy());
      await new Promise((r) => server.close(r));
    },
  };
}

const getTable = (db: string): ttypes.GetTableRequest => new ttypes.GetTableRequest({ dbName: db, tblName: 'events' });

describe('SASL quality of protection (hms-krb offers authentication and privacy)', () => {
  const privacy = { ...kerberos, protection: ['privacy' as const] };
  const PARTITIONS = 300;
  let f: Fixture;
  let writer: ThriftHmsWriter;

  beforeAll(async () => {
    f = fixture(uniqueName('him_qop'));
    // Written through privacy: add_partitions requests of ~150 KB each, above the server's 64 KiB buffer.
    writer = new ThriftHmsWriter(
      new HmsCaller({ uri: KRB_URI, kerberos: privacy, poolSize: 1, callsPerSecond: 0, partitionBatchSize: 100 }),
    );
    await createFixture(writer, f);
    const base = f.eventPartitions[0];
    if (base === undefined) throw new Error('fixture without partitions');
    const many = Array.from({ length: PARTITIONS }, (_, i) => ({
      ...base,
      values: [`2025-01-${String(i).padStart(3, '0')}`, `r${i}`],
      sd: { ...base.sd, location: `${f.db.locationUri}/events/q${i}` },
      parameters: { 'him.part': String(i), 'him.padding': 'p'.repeat(1500) },
    }));
    await writer.addPartitions(f.db.name, 'events', many);
  }, 120_000);
  afterAll(async () => {
    if (writer) await dropFixture(writer, f);
    await writer?.close();
  });

  it('the offer is authentication + privacy; [privacy] reads databases, a table and 500 KB of partitions over one connection', async () => {
    const conn = await openHms(KRB_URI, { connectTimeoutMs: 5000, callTimeoutMs: 30_000, kerberos: privacy });
    try {
      expect(conn.protection).toBe('privacy');
      // RFC 4752 bit mask 1 (no layer) | 4 (confidentiality): hadoop.rpc.protection=authentication,privacy.
      expect(conn.saslOffer?.layers).toBe(0b101);
      expect(conn.saslOffer?.maxBuffer).toBeGreaterThan(0);
      expect(await conn.call('get_all_databases', (c) => c.get_all_databases())).toContain(f.db.name);
      const t = await conn.call('get_table_req', (c) => c.get_table_req(getTable(f.db.name)));
      expect(t.table.partitionKeys.map((k) => k.name)).toEqual(['dt', 'region']);
      const parts = await conn.call('get_partitions', (c) => c.get_partitions(f.db.name, 'events', -1));
      expect(parts).toHaveLength(PARTITIONS + f.eventPartitions.length);
      expect(parts.find((p) => p.values?.[1] === 'r299')?.parameters?.['him.padding']).toHaveLength(1500);
      // Several calls on the one connection: the wrap/unwrap sequence stays in step.
      expect(await conn.call('getVersion', (c) => c.getVersion())).toBe('4.0.1');
    } finally {
      conn.close();
    }
  }, 60_000);

  it('on the wire: privacy shows no database or partition name; authentication shows both', async () => {
    const readThrough = async (protection: 'privacy' | 'authentication'): Promise<Buffer> => {
      const r = await relay(KRB_URI);
      try {
        const conn = await openHms(r.uri, {
          connectTimeoutMs: 5000,
          callTimeoutMs: 30_000,
          kerberos: { ...kerberos, protection: [protection] },
        });
        try {
          expect(conn.protection).toBe(protection);
          await conn.call('get_table_req', (c) => c.get_table_req(getTable(f.db.name)));
          const parts = await conn.call('get_partitions', (c) => c.get_partitions(f.db.name, 'events', -1));
          expect(parts).toHaveLength(PARTITIONS + f.eventPartitions.length);
        } finally {
          conn.close();
        }
        return r.wire();
      } finally {
        await r.close();
      }
    };
    const sealed = await readThrough('privacy');
    const plain = await readThrough('authentication');
    expect(sealed.length).toBeGreaterThan(500_000);
    for (const name of [f.db.name, 'r299', 'him.padding']) {
      expect(sealed.includes(name)).toBe(false);
      expect(plain.includes(name)).toBe(true);
    }
  }, 60_000);

  it('[integrity] → HMS_KERBEROS_AUTH_FAILED naming what the metastore offers and the key to set', async () => {
    const e = await failure(
      openHms(KRB_URI, { connectTimeoutMs: 5000, callTimeoutMs: 10_000, kerberos: { ...kerberos, protection: ['integrity'] } }),
    );
    expect(e.code).toBe('HMS_KERBEROS_AUTH_FAILED');
    expect(e.message).toContain('the metastore offers protection authentication, privacy (its hadoop.rpc.protection)');
    expect(e.message).toContain('set hms.thrift.kerberos.protection to include authentication or privacy');
    expect(e.context).toMatchObject({ serverProtection: ['authentication', 'privacy'], protection: ['integrity'] });
  });

  it('a privacy connection outlives its service ticket (4 s lifetime): MIT GSSAPI keeps wrapping, the metastore keeps answering', async () => {
    const conf = path.join(mkdtempSync(path.join(os.tmpdir(), 'him-krb-')), 'krb5.conf');
    writeFileSync(conf, readFileSync(env.HIM_KRB5_CONFIG as string, 'utf8').replace(/ticket_lifetime = .*/, 'ticket_lifetime = 4s'));
    const script = path.join(__dirname, 'kerberos-privacy-outlives-ticket.ts');
    const r = await run(TSX, [script, KRB_URI, '6000'], 60_000, { KRB5_CONFIG: conf });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { protection: string; ticketExpiresAt: string; before: string[]; after: string[]; usable: boolean };
    expect(out.protection).toBe('privacy');
    // The ticket (and so the security context's lifetime) ended before the second call.
    expect(Date.parse(out.ticketExpiresAt)).toBeLessThan(Date.now() - 1000);
    expect(out.after).toEqual(out.before);
    expect(out.usable).toBe(true);
  }, 60_000);

  it('without a preference: authentication, the cheapest the metastore offers', async () => {
    const conn = await openHms(KRB_URI, { connectTimeoutMs: 5000, callTimeoutMs: 10_000, kerberos });
    try {
      expect(conn.protection).toBe('authentication');
      expect(await conn.call('get_all_databases', (c) => c.get_all_databases())).toContain(f.db.name);
    } finally {
      conn.close();
    }
  });
});
