// Temporal connection settings: our config merged with Temporal's environment configuration
// (@temporalio/envconfig, the real package: TEMPORAL_* variables and a TOML profile file). Config
// wins over the environment, the environment over the profile; every value says where it came
// from; the SDK options carry the same; a missing file or variable is a CONFIG_INVALID naming it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configSchema } from '../../../core/config/schema';
import type { MigrateConfig } from '../../../core/config/schema';
import { connectionOptions, resolveTemporal } from '../../../app/runtime/temporal-connect';
import { errorOf } from '../../helpers/errors';

const dir = mkdtempSync(path.join(os.tmpdir(), 'him-tconn-'));
const file = (name: string, text: string): string => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};
const ca = file('ca.pem', 'CA-PEM');
const cert = file('client.pem', 'CLIENT-PEM');
const key = file('client.key', 'KEY-PEM');
const envCa = file('env-ca.pem', 'ENV-CA-PEM');
const toml = file(
  'temporal.toml',
  `[profile.default]\naddress = "default-host:7233"\n\n[profile.prod]\naddress = "prod-host:7233"\nnamespace = "prod-ns"\napi_key = "profile-key"\n[profile.prod.tls]\nserver_name = "prod.tmprl.cloud"\nserver_ca_cert_path = "${ca}"\nclient_cert_data = "INLINE-CERT"\nclient_key_path = "${key}"\n`,
);
const cfg = (temporal: Record<string, unknown>): MigrateConfig => configSchema.parse({ temporal });
// No HOME: the user's own ~/.config/temporalio/temporal.toml never leaks into a test.
const noHome = { PATH: '/usr/bin' };

describe('resolveTemporal', () => {
  it('an existing config (address, namespace, nothing else) stays plain TCP with config sources', () => {
    const s = resolveTemporal(cfg({ address: 'h:7233', namespace: 'ns' }), noHome);
    expect([s.address, s.namespace, s.tls, s.apiKey]).toEqual([
      { value: 'h:7233', source: 'config temporal.address' },
      { value: 'ns', source: 'config temporal.namespace' },
      undefined,
      undefined,
    ]);
    expect(connectionOptions(s)).toEqual({ address: 'h:7233' });
  });

  it('environment fills what the config leaves unset; the config wins where both have a value', () => {
    const env = { ...noHome, TEMPORAL_ADDRESS: 'env-host:1', TEMPORAL_NAMESPACE: 'env-ns', TEMPORAL_TLS_SERVER_CA_CERT_PATH: envCa };
    const fromEnv = resolveTemporal(cfg({}), env);
    expect([fromEnv.address.source, fromEnv.namespace.value, fromEnv.tls?.enabledBy, fromEnv.tls?.serverCa?.source]).toEqual([
      'env TEMPORAL_ADDRESS',
      'env-ns',
      'env TEMPORAL_TLS_*',
      `env TEMPORAL_TLS_SERVER_CA_CERT_PATH (${envCa})`,
    ]);
    const both = resolveTemporal(cfg({ address: 'cfg-host:2', tls: { serverCaFile: ca } }), env);
    expect([both.address.value, both.namespace.source, both.tls?.serverCa?.value.toString()]).toEqual([
      'cfg-host:2',
      'env TEMPORAL_NAMESPACE',
      'CA-PEM',
    ]);
  });

  it('a profile of the TOML file (temporal.profile beats TEMPORAL_PROFILE), under environment and config', () => {
    const s = resolveTemporal(cfg({ configFile: toml, profile: 'prod' }), { ...noHome, TEMPORAL_PROFILE: 'default' });
    const label = `profile 'prod' in ${toml}`;
    expect(s.address).toEqual({ value: 'prod-host:7233', source: `${label} address` });
    expect(s.namespace.value).toBe('prod-ns');
    expect(s.apiKey?.source).toBe(`${label} api_key`);
    expect(s.tls?.enabledBy).toBe(`${label} tls`);
    expect(s.tls?.serverName).toEqual({ value: 'prod.tmprl.cloud', source: `${label} tls.server_name` });
    expect(s.tls?.clientCert?.source).toBe(`${label} tls.client_cert_data`);
    expect(s.tls?.clientKey?.source).toBe(`${label} tls.client_key_path (${key})`);
    const o = connectionOptions(s);
    expect(o.apiKey).toBe('profile-key');
    expect(o.tls).toEqual({
      serverNameOverride: 'prod.tmprl.cloud',
      serverRootCACertificate: Buffer.from('CA-PEM'),
      clientCertPair: { crt: Buffer.from('INLINE-CERT'), key: Buffer.from('KEY-PEM') },
    });
    // TEMPORAL_CONFIG_FILE + TEMPORAL_PROFILE without config keys; TEMPORAL_ADDRESS over the profile.
    const e = resolveTemporal(cfg({}), { ...noHome, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod', TEMPORAL_ADDRESS: 'env:9' });
    expect([e.address.source, e.namespace.source]).toEqual(['env TEMPORAL_ADDRESS', `${label} namespace`]);
  });

  it('the API key: from the variable temporal.apiKeyEnv names (over TEMPORAL_API_KEY); it turns TLS on', () => {
    const env = { ...noHome, MY_KEY: 'k-123', TEMPORAL_API_KEY: 'other' };
    const s = resolveTemporal(cfg({ address: 'h:1', apiKeyEnv: 'MY_KEY' }), env);
    expect(s.apiKey).toEqual({ value: 'k-123', source: 'env MY_KEY (config temporal.apiKeyEnv)' });
    expect(s.tls?.enabledBy).toBe('an API key (always over TLS)');
    expect(connectionOptions(s)).toEqual({ address: 'h:1', tls: {}, apiKey: 'k-123' });
    expect(resolveTemporal(cfg({ address: 'h:1' }), env).apiKey?.source).toBe('env TEMPORAL_API_KEY');
    // TEMPORAL_TLS=false turns it off, unless the config has a tls section.
    expect(resolveTemporal(cfg({ address: 'h:1' }), { ...noHome, TEMPORAL_TLS: 'false' }).tls).toBeUndefined();
    expect(resolveTemporal(cfg({ address: 'h:1', tls: {} }), { ...noHome, TEMPORAL_TLS: 'false' }).tls?.enabledBy).toBe(
      'config temporal.tls',
    );
  });

  it('what cannot be resolved is a CONFIG_INVALID naming the key or variable', () => {
    const cases: [Record<string, unknown>, NodeJS.ProcessEnv, RegExp][] = [
      [{}, noHome, /no Temporal address: set temporal.address, TEMPORAL_ADDRESS or a profile address/],
      [{ address: 'h:1', apiKeyEnv: 'UNSET_KEY' }, noHome, /temporal.apiKeyEnv names UNSET_KEY, which is not set/],
      [
        { address: 'h:1', tls: { serverCaFile: path.join(dir, 'missing.pem') } },
        noHome,
        /temporal.tls.serverCaFile: cannot read .*missing.pem: ENOENT/,
      ],
      [{ address: 'h:1', profile: 'nope', configFile: toml }, noHome, /profile 'nope' in .*temporal.toml: Profile 'nope' not found/],
      [{ address: 'h:1', configFile: path.join(dir, 'none.toml') }, noHome, /temporal.configFile .*none.toml does not exist/],
      [{}, { ...noHome, TEMPORAL_ADDRESS: 'no-port' }, /from env TEMPORAL_ADDRESS: expected host:port, got 'no-port'/],
      [{ address: 'h:1' }, { ...noHome, TEMPORAL_TLS_CLIENT_CERT_PATH: cert }, /a client certificate needs its key/],
    ];
    for (const [t, env, message] of cases) {
      const e = errorOf(() => resolveTemporal(cfg(t), env));
      expect({ code: e.code, message: e.message }).toEqual({ code: 'CONFIG_INVALID', message: expect.stringMatching(message) });
    }
    // The schema: certificate and key go together.
    expect(() => cfg({ address: 'h:1', tls: { clientCertFile: cert } })).toThrow(/clientCertFile and clientKeyFile go together/);
  });
});
