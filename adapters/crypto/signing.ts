// Plan signing keys from the config (`plan.signing`, docs/plan-signing.md) on node:crypto: HMAC-SHA256
// with a shared key from an environment variable, or Ed25519 with PEM key files. Implements the
// ports of core/plan/signing.ts; every key problem is a CONFIG_INVALID naming the config path.
import { createHash, createHmac, createPrivateKey, createPublicKey, sign, timingSafeEqual, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { PlanSigningConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import { SignatureType } from '../../core/plan/signing';
import { readBoundedFile } from '../input/bounded-file';
import type { PlanSigningKey, PlanVerifier } from '../../core/plan/signing';

/** Shortest HMAC key accepted (characters of the environment variable's value). */
export const MIN_HMAC_KEY_LENGTH = 32;

export interface PlanSigning {
  readonly verifier: PlanVerifier;
  /** The current key, to sign with (Ed25519: needs privateKeyFile). */
  signingKey(): PlanSigningKey;
}

const configError = (path: string, message: string): MigrationError =>
  new MigrationError(ErrorCode.CONFIG_INVALID, `${path}: ${message}`, { paths: [path] });

interface HmacKey {
  readonly id: string;
  readonly secret: Buffer;
}

function hmacKey(env: NodeJS.ProcessEnv, name: string, path: string): HmacKey {
  const value = env[name];
  if (value === undefined || value === '') throw configError(path, `environment variable ${name} is not set`);
  if (value.length < MIN_HMAC_KEY_LENGTH) throw configError(path, `the key in ${name} is shorter than ${MIN_HMAC_KEY_LENGTH} characters`);
  const secret = Buffer.from(value, 'utf8');
  return { id: createHmac('sha256', secret).update('hms-iceberg-migrator plan key id').digest('hex').slice(0, 16), secret };
}

function hmacSigning(cfg: Extract<PlanSigningConfig, { type: 'hmac' }>, env: NodeJS.ProcessEnv): PlanSigning {
  const current = hmacKey(env, cfg.keyEnv, 'plan.signing.keyEnv');
  const keys = [current, ...cfg.previousKeyEnvs.map((n, i) => hmacKey(env, n, `plan.signing.previousKeyEnvs[${i}]`))];
  const mac = (k: HmacKey, message: string): Buffer => createHmac('sha256', k.secret).update(message, 'utf8').digest();
  return {
    verifier: {
      type: SignatureType.HMAC_SHA256,
      keyIds: keys.map((k) => k.id),
      verify(keyId, message, value) {
        const k = keys.find((x) => x.id === keyId);
        if (k === undefined) return false;
        const given = Buffer.from(value, 'base64');
        const want = mac(k, message);
        return given.length === want.length && timingSafeEqual(given, want);
      },
    },
    signingKey: () => ({ type: SignatureType.HMAC_SHA256, keyId: current.id, sign: (message) => mac(current, message).toString('base64') }),
  };
}

/** A key file holds at most this much PEM. */
const MAX_KEY_BYTES = 64 * 1024;

function readPem(file: string, path: string): Buffer {
  try {
    return readBoundedFile(file, { what: 'key file', code: ErrorCode.CONFIG_INVALID, maxBytes: MAX_KEY_BYTES });
  } catch (e) {
    throw configError(path, (e as Error).message);
  }
}

/** Key id of an Ed25519 public key: the first 16 hex digits of the sha256 of its SPKI DER. */
function ed25519Id(key: KeyObject): string {
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

function ed25519Key(file: string, path: string, kind: 'public' | 'private'): KeyObject {
  const pem = readPem(file, path);
  let key: KeyObject;
  try {
    key = kind === 'public' ? createPublicKey(pem) : createPrivateKey(pem);
  } catch (e) {
    throw configError(path, `${file} is not a PEM ${kind} key: ${(e as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw configError(path, `${file} holds a ${key.asymmetricKeyType ?? 'unknown'} key, not ed25519`);
  return key;
}

function ed25519Signing(cfg: Extract<PlanSigningConfig, { type: 'ed25519' }>): PlanSigning {
  const current = ed25519Key(cfg.publicKeyFile, 'plan.signing.publicKeyFile', 'public');
  const keys = [
    current,
    ...cfg.previousPublicKeyFiles.map((f, i) => ed25519Key(f, `plan.signing.previousPublicKeyFiles[${i}]`, 'public')),
  ].map((k) => ({ id: ed25519Id(k), key: k }));
  const currentId = ed25519Id(current);
  return {
    verifier: {
      type: SignatureType.ED25519,
      keyIds: keys.map((k) => k.id),
      verify(keyId, message, value) {
        const k = keys.find((x) => x.id === keyId);
        if (k === undefined) return false;
        try {
          return verify(null, Buffer.from(message, 'utf8'), k.key, Buffer.from(value, 'base64'));
        } catch {
          return false;
        }
      },
    },
    signingKey() {
      if (cfg.privateKeyFile === undefined)
        throw configError('plan.signing.privateKeyFile', 'not set: migrate plan needs the private key to sign');
      const priv = ed25519Key(cfg.privateKeyFile, 'plan.signing.privateKeyFile', 'private');
      if (ed25519Id(createPublicKey(priv)) !== currentId)
        throw configError(
          'plan.signing.privateKeyFile',
          `${cfg.privateKeyFile} is not the private key of publicKeyFile ${cfg.publicKeyFile}`,
        );
      return {
        type: SignatureType.ED25519,
        keyId: currentId,
        sign: (message) => sign(null, Buffer.from(message, 'utf8'), priv).toString('base64'),
      };
    },
  };
}

/** Load every key plan.signing names (all checked now, before any connection). */
export function openPlanSigning(cfg: PlanSigningConfig, env: NodeJS.ProcessEnv): PlanSigning {
  return cfg.type === 'hmac' ? hmacSigning(cfg, env) : ed25519Signing(cfg);
}
