// Run by kerberos.test.ts in a child process (its own KRB5_CONFIG with a short ticket lifetime): one
// connection to hms-krb with protection [privacy], a call, a wait of `gapMs`, a call on the same
// connection; prints the ticket's expiry, both results and whether the connection is still usable.
// Usage: tsx kerberos-privacy-outlives-ticket.ts <uri> <gapMs>
import { openHms } from '../../../adapters/hms/thrift/connection';

const [uri = '', gap = '0'] = process.argv.slice(2);
const kerberos = {
  servicePrincipal: `hive/_HOST@${process.env.HIM_KRB_REALM ?? ''}`,
  clientPrincipal: process.env.HIM_KRB_CLIENT_PRINCIPAL ?? '',
  keytabFile: process.env.HIM_KRB_CLIENT_KEYTAB ?? '',
  protection: ['privacy' as const],
};

async function main(): Promise<void> {
  const conn = await openHms(uri, { connectTimeoutMs: 5000, callTimeoutMs: 10_000, kerberos });
  try {
    const before = await conn.call('get_all_databases', (c) => c.get_all_databases());
    await new Promise((r) => setTimeout(r, Number(gap)));
    const after = await conn.call('get_all_databases', (c) => c.get_all_databases());
    const out = { protection: conn.protection, ticketExpiresAt: conn.identity?.ticketExpiresAt, before, after, usable: conn.usable };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    conn.close();
  }
}

main().catch((e: Error & { code?: string }) => {
  process.stdout.write(`${JSON.stringify({ code: e.code, message: e.message })}\n`);
  process.exitCode = 1;
});
