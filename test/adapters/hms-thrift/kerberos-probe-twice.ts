// Run by kerberos.test.ts in a child process (its own KRB5_CONFIG): two probes of hms-krb with the
// client keytab, `gapMs` apart; prints both identities as JSON. Usage: tsx kerberos-probe-twice.ts <uri> <gapMs>
import { probeHms } from '../../../adapters/hms/thrift/connection';

const [uri = '', gap = '0'] = process.argv.slice(2);
const kerberos = {
  servicePrincipal: `hive/_HOST@${process.env.HIM_KRB_REALM ?? ''}`,
  clientPrincipal: process.env.HIM_KRB_CLIENT_PRINCIPAL ?? '',
  keytabFile: process.env.HIM_KRB_CLIENT_KEYTAB ?? '',
};

async function main(): Promise<void> {
  const first = await probeHms(uri, 5000, kerberos);
  await new Promise((r) => setTimeout(r, Number(gap)));
  const second = await probeHms(uri, 5000, kerberos);
  process.stdout.write(`${JSON.stringify([first.identity, second.identity])}\n`);
}

main().catch((e: Error & { code?: string }) => {
  process.stdout.write(`${JSON.stringify({ code: e.code, message: e.message })}\n`);
  process.exitCode = 1;
});
