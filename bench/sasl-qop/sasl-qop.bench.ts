// What SASL privacy costs per HMS call: median latency of N get_all_databases calls over one
// connection to the stack's hms-krb with hms.thrift.kerberos.protection [authentication] (plain
// frames) and [privacy] (every request and reply gss_wrap'ed/unwrapped; the stack's realm has AES
// enctypes only). Both connections stay open; calls alternate in blocks of 20 (A then B), so load on
// a shared machine falls on both alike. The first 20 calls of each are a warm-up, not counted.
//
//   eval "$(npx tsx dev/stack/main.ts env)"; KRB5_CONFIG=$HIM_KRB5_CONFIG npx tsx bench/sasl-qop/sasl-qop.bench.ts [--n 200]
import { performance } from 'node:perf_hooks';
import { openHms } from '../../adapters/hms/thrift/connection';
import type { HmsConnection } from '../../adapters/hms/thrift/connection';
import { flags } from '../common/flags';

const BLOCK = 20;
const WARMUP = 20;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? NaN;

function required(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is not set: eval "$(npx tsx dev/stack/main.ts env)" first`);
  return v;
}

async function open(protection: 'authentication' | 'privacy'): Promise<HmsConnection> {
  const kerberos = {
    servicePrincipal: `hive/_HOST@${required('HIM_KRB_REALM')}`,
    clientPrincipal: required('HIM_KRB_CLIENT_PRINCIPAL'),
    keytabFile: required('HIM_KRB_CLIENT_KEYTAB'),
    protection: [protection],
  };
  const conn = await openHms(required('HIM_HMS_KRB_URI'), { connectTimeoutMs: 10_000, callTimeoutMs: 30_000, kerberos });
  if (conn.protection !== protection) throw new Error(`asked for ${protection}, negotiated ${conn.protection ?? 'none'}`);
  return conn;
}

async function block(conn: HmsConnection, n: number, into: number[] | undefined): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await conn.call('get_all_databases', (c) => c.get_all_databases());
    into?.push(performance.now() - t0);
  }
}

async function main(): Promise<void> {
  const n = Number(flags(process.argv.slice(2)).get('n') ?? '200');
  const conns = { authentication: await open('authentication'), privacy: await open('privacy') };
  const ms: Record<keyof typeof conns, number[]> = { authentication: [], privacy: [] };
  try {
    for (const c of Object.values(conns)) await block(c, WARMUP, undefined);
    for (let done = 0; done < n; done += BLOCK) {
      for (const [name, c] of Object.entries(conns) as [keyof typeof conns, HmsConnection][])
        await block(c, Math.min(BLOCK, n - done), ms[name]);
    }
  } finally {
    Object.values(conns).forEach((c) => c.close());
  }
  const row = (name: keyof typeof conns): string =>
    `| ${name} | ${ms[name].length} | ${median(ms[name]).toFixed(3)} | ${quantile(ms[name], 0.9).toFixed(3)} | ${Math.min(...ms[name]).toFixed(3)} |`;
  process.stdout.write(
    [
      '| protection | calls | median ms | p90 ms | min ms |',
      '| --- | --- | --- | --- | --- |',
      row('authentication'),
      row('privacy'),
      '',
      `privacy/authentication median: ${(median(ms.privacy) / median(ms.authentication)).toFixed(2)}×`,
      '',
    ].join('\n'),
  );
}

main().catch((e: Error) => {
  process.stderr.write(`${e.message}\n`);
  process.exitCode = 1;
});
