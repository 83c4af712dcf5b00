// Kerberos through the system's MIT GSSAPI library (libgssapi_krb5.so.2, RFC 2744 C bindings) via
// koffi's FFI: credentials from a client keytab (into a private in-memory cache) or the user's
// credential cache, a security context with the service, and gss_wrap/gss_unwrap for the SASL
// security-layer message (RFC 4752) and, with integrity or privacy, for every Thrift message. koffi
// and the library load on first use only, so a host without them runs everything but Kerberos.
// Adapter code; key material never passes through here (paths and principal names only).
import { ErrorCode } from '../../../core/errors';
import type { MigrationError } from '../../../core/errors';
import { hmsError } from './errors';
import type { Protection } from './sasl-layer';

/** hms.thrift.kerberos: names and paths only. */
export interface HmsKerberos {
  /** The metastore's principal, e.g. hive/_HOST@REALM (`_HOST` → the host of the URI, lower-case). */
  readonly servicePrincipal: string;
  /** The principal to authenticate as; default: the cache's (or the keytab's first) principal. */
  readonly clientPrincipal?: string;
  /** A client keytab: tickets are obtained (and renewed) from it into a memory cache of this process. */
  readonly keytabFile?: string;
  /** The MIT GSSAPI library to load: a file name for the dynamic linker or a path (default libgssapi_krb5.so.2). */
  readonly gssapiLibrary?: string;
  /** Acceptable SASL qualities of protection in order of preference (default: sasl-layer.ts DEFAULT_PROTECTION). */
  readonly protection?: readonly Protection[];
}

export const DEFAULT_GSSAPI_LIBRARY = 'libgssapi_krb5.so.2';

/** Who we are to the metastore, for `migrate doctor` (no secrets). */
export interface KerberosIdentity {
  readonly method: 'kerberos';
  readonly clientPrincipal: string;
  readonly servicePrincipal: string;
  /** When the service ticket (and so this authentication) expires. */
  readonly ticketExpiresAt: string;
  readonly credentialSource: 'keytab' | 'ccache';
}

// RFC 2744 / RFC 1964 constants.
const GSS_C_MUTUAL_FLAG = 2;
const GSS_C_CONF_FLAG = 16;
const GSS_C_INTEG_FLAG = 32;
const GSS_C_INITIATE = 1;
const GSS_C_GSS_CODE = 1;
const GSS_C_MECH_CODE = 2;
const GSS_S_CONTINUE_NEEDED = 1;
/** Routine errors (major >> 16) that mean "no usable credentials". */
const NO_CRED_ROUTINES = new Set([7 /* NO_CRED */, 10 /* DEFECTIVE_CREDENTIAL */, 11 /* CREDENTIALS_EXPIRED */]);
/** Routine error GSS_S_CONTEXT_EXPIRED: the security context outlived its service ticket. */
const CONTEXT_EXPIRED_ROUTINE = 12;
const NO_TICKET_TEXT =
  /No Kerberos credentials|No credentials cache|credentials cache file .* not found|Ticket expired|not found in keytab|Key table .* not found|Key table file .* not found|No key table entry/i;
/** 1.2.840.113554.1.2.2: the Kerberos v5 mechanism; .1: GSS_KRB5_NT_PRINCIPAL_NAME (RFC 1964 §2.1.1). */
const KRB5_MECH = Buffer.from([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02]);
const KRB5_NT_PRINCIPAL_NAME = Buffer.from([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02, 0x01]);

type Ptr = unknown;
type Fn = ((...args: unknown[]) => number) & { async: (...args: unknown[]) => void };
interface GssBuffer {
  length: number | bigint;
  value: Ptr;
}
interface Lib {
  readonly koffi: {
    view(p: Ptr, len: number): ArrayBuffer;
    alloc(t: unknown, n: number): Ptr;
    free(p: Ptr): void;
    encode(p: Ptr, t: unknown, v: unknown): void;
    array(t: unknown, n: number): unknown;
  };
  readonly kv: unknown;
  readonly f: Readonly<Record<string, Fn>>;
}

const SIGNATURES = {
  import_name: 'uint32 gss_import_name(_Out_ uint32 *minor, gss_buffer_desc *in, gss_OID_desc *type, _Out_ void **out)',
  release_name: 'uint32 gss_release_name(_Out_ uint32 *minor, _Inout_ void **name)',
  display_name: 'uint32 gss_display_name(_Out_ uint32 *minor, void *name, _Out_ gss_buffer_desc *out, void *type)',
  acquire_cred:
    'uint32 gss_acquire_cred(_Out_ uint32 *minor, void *name, uint32 time, void *mechs, int usage, _Out_ void **cred, void *actual, _Out_ uint32 *rec)',
  acquire_cred_from:
    'uint32 gss_acquire_cred_from(_Out_ uint32 *minor, void *name, uint32 time, void *mechs, int usage, gss_key_value_set_desc *store, _Out_ void **cred, void *actual, _Out_ uint32 *rec)',
  release_cred: 'uint32 gss_release_cred(_Out_ uint32 *minor, _Inout_ void **cred)',
  init_sec_context:
    'uint32 gss_init_sec_context(_Out_ uint32 *minor, void *cred, _Inout_ void **ctx, void *target, gss_OID_desc *mech, uint32 flags, uint32 time, void *cb, gss_buffer_desc *input, void *actual, _Out_ gss_buffer_desc *output, _Out_ uint32 *retFlags, _Out_ uint32 *rec)',
  inquire_context:
    'uint32 gss_inquire_context(_Out_ uint32 *minor, void *ctx, _Out_ void **src, _Out_ void **targ, _Out_ uint32 *life, void *mech, void *flags, void *local, void *open)',
  delete_sec_context: 'uint32 gss_delete_sec_context(_Out_ uint32 *minor, _Inout_ void **ctx, void *out)',
  wrap: 'uint32 gss_wrap(_Out_ uint32 *minor, void *ctx, int conf, uint32 qop, gss_buffer_desc *in, _Out_ int *confState, _Out_ gss_buffer_desc *out)',
  unwrap:
    'uint32 gss_unwrap(_Out_ uint32 *minor, void *ctx, gss_buffer_desc *in, _Out_ gss_buffer_desc *out, _Out_ int *confState, _Out_ uint32 *qop)',
  release_buffer: 'uint32 gss_release_buffer(_Out_ uint32 *minor, gss_buffer_desc *buf)',
  display_status:
    'uint32 gss_display_status(_Out_ uint32 *minor, uint32 status, int type, void *mech, _Inout_ uint32 *ctx, _Out_ gss_buffer_desc *out)',
} as const;

/**
 * koffi's type names and the loaded library are process-wide, while this module may be loaded more
 * than once in a process (test runners' module registries): keep the one Lib on globalThis.
 */
const SINGLETON = Symbol.for('hms-iceberg-migrator.gssapi');
const holder = globalThis as { [SINGLETON]?: Map<string, Lib> };
const libs = (holder[SINGLETON] ??= new Map<string, Lib>());
/** The library this process authenticates with (the one the last credentials were acquired through). */
let loaded: Lib | undefined;

/** koffi and the GSSAPI library, once per library; HMS_KERBEROS_UNAVAILABLE when either is missing. */
function lib(library?: string): Lib {
  if (library === undefined && loaded) return loaded;
  const file = library ?? DEFAULT_GSSAPI_LIBRARY;
  const have = libs.get(file);
  if (have) return (loaded = have);
  let koffi: Record<string, (...a: unknown[]) => unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when Kerberos is configured
    koffi = require('koffi') as typeof koffi;
  } catch (e) {
    throw unavailable(`the koffi package cannot be loaded (${(e as Error).message})`, e);
  }
  try {
    const so = koffi.load!(file) as { func(sig: string): Fn };
    // Type names are process-wide in koffi: another copy of this module (or a test's global setup) may have made them.
    const struct = (name: string, def: Record<string, string>): unknown => {
      try {
        return koffi.resolve!(name);
      } catch {
        return koffi.struct!(name, def);
      }
    };
    struct('gss_buffer_desc', { length: 'size_t', value: 'void *' });
    struct('gss_OID_desc', { length: 'uint32', elements: 'void *' });
    const kv = struct('gss_key_value_element_desc', { key: 'void *', value: 'void *' });
    struct('gss_key_value_set_desc', { count: 'uint32', elements: 'void *' });
    const f = Object.fromEntries(Object.entries(SIGNATURES).map(([k, sig]) => [k, so.func(sig)]));
    loaded = { koffi: koffi as unknown as Lib['koffi'], kv, f };
    libs.set(file, loaded);
    return loaded;
  } catch (e) {
    throw unavailable(`the GSSAPI library ${file} cannot be loaded or bound (${(e as Error).message})`, e);
  }
}

function unavailable(detail: string, cause: unknown): MigrationError {
  return hmsError(ErrorCode.HMS_KERBEROS_UNAVAILABLE, `Kerberos is configured (hms.thrift.kerberos) but ${detail}`, {}, cause);
}

function bytesOf(l: Lib, b: GssBuffer): Buffer {
  const n = Number(b.length);
  return n === 0 ? Buffer.alloc(0) : Buffer.from(l.koffi.view(b.value, n).slice(0));
}

/** Copy and release a buffer GSSAPI allocated. */
function take(l: Lib, b: GssBuffer): Buffer {
  const out = bytesOf(l, b);
  l.f.release_buffer!([0], b);
  return out;
}

/** gss_display_status for both the GSS and the mechanism (krb5) code: "Unspecified GSS failure; Server not found in Kerberos database". */
function statusText(major: number, minor: number): string {
  const l = lib();
  const parts: string[] = [];
  for (const [code, type] of [
    [major, GSS_C_GSS_CODE],
    [minor, GSS_C_MECH_CODE],
  ] as const) {
    if (code === 0) continue;
    const msgCtx = [0];
    do {
      const out = {} as GssBuffer;
      if (l.f.display_status!([0], code, type, null, msgCtx, out) !== 0) break;
      const text = take(l, out).toString('utf8').trim();
      // MIT's generic major-code text ("Unspecified GSS failure.  Minor code may provide more information") says nothing.
      if (text !== '' && !/Minor code may provide more information$/.test(text)) parts.push(text);
    } while (msgCtx[0] !== 0);
  }
  return parts.join('; ') || `GSSAPI major ${major} minor ${minor}`;
}

export class GssFailure extends Error {
  constructor(
    readonly major: number,
    readonly minor: number,
    readonly text: string,
  ) {
    super(text);
  }
  get noTicket(): boolean {
    return NO_CRED_ROUTINES.has((this.major >>> 16) & 0xff) || NO_TICKET_TEXT.test(this.text);
  }
  get contextExpired(): boolean {
    return ((this.major >>> 16) & 0xff) === CONTEXT_EXPIRED_ROUTINE;
  }
}

function check(major: number, minor: number[]): void {
  if (major !== 0 && major !== GSS_S_CONTINUE_NEEDED) throw new GssFailure(major, minor[0] ?? 0, statusText(major, minor[0] ?? 0));
}

function importName(l: Lib, principal: string): Ptr {
  const text = Buffer.from(principal, 'utf8');
  const minor = [0];
  const out: Ptr[] = [null];
  check(
    l.f.import_name!(
      minor,
      { length: text.length, value: text },
      { length: KRB5_NT_PRINCIPAL_NAME.length, elements: KRB5_NT_PRINCIPAL_NAME },
      out,
    ),
    minor,
  );
  return out[0];
}

function releaseName(l: Lib, name: Ptr): void {
  if (name) l.f.release_name!([0], [name]);
}

function displayName(l: Lib, name: Ptr): string {
  const out = {} as GssBuffer;
  const minor = [0];
  check(l.f.display_name!(minor, name, out, null), minor);
  return take(l, out).toString('utf8');
}

/** Run a GSSAPI call on koffi's worker thread: KDC exchanges (AS, TGS) must not block the event loop. */
function callAsync(fn: Fn, ...args: unknown[]): Promise<number> {
  return new Promise<number>((resolve, reject) =>
    fn.async(...args, (err: Error | null, major: number) => (err ? reject(err) : resolve(major))),
  );
}

/** A cred-store of C strings (gss_acquire_cred_from, MIT ≥ 1.11): `client_keytab` and a per-process `ccache`. */
function credStore(l: Lib, entries: ReadonlyArray<readonly [string, string]>): { store: unknown; free: () => void; keep: Buffer[] } {
  const cstr = (s: string): Buffer => Buffer.from(`${s}\0`, 'utf8');
  const keep = entries.flatMap(([k, v]) => [cstr(k), cstr(v)]);
  const elems = l.koffi.alloc(l.kv, entries.length);
  l.koffi.encode(
    elems,
    l.koffi.array(l.kv, entries.length),
    entries.map((_, i) => ({ key: keep[2 * i], value: keep[2 * i + 1] })),
  );
  return { store: { count: entries.length, elements: elems }, free: () => l.koffi.free(elems), keep };
}

/** Credentials to initiate with: from the keytab (tickets into MEMORY:him-<pid>) or the default/KRB5CCNAME cache. */
export async function acquireCredentials(k: HmsKerberos): Promise<Ptr> {
  const l = lib(k.gssapiLibrary ?? DEFAULT_GSSAPI_LIBRARY);
  const name = k.clientPrincipal === undefined ? null : importName(l, k.clientPrincipal);
  const minor = [0];
  const cred: Ptr[] = [null];
  try {
    if (k.keytabFile === undefined) {
      check(await callAsync(l.f.acquire_cred!, minor, name, 0, null, GSS_C_INITIATE, cred, null, [0]), minor);
    } else {
      const s = credStore(l, [
        ['client_keytab', k.keytabFile],
        ['ccache', `MEMORY:him-${process.pid}`],
      ]);
      try {
        check(await callAsync(l.f.acquire_cred_from!, minor, name, 0, null, GSS_C_INITIATE, s.store, cred, null, [0]), minor);
      } finally {
        s.free();
      }
    }
    return cred[0];
  } finally {
    releaseName(l, name);
  }
}

export function releaseCredentials(cred: Ptr): void {
  if (cred && loaded) loaded.f.release_cred!([0], [cred]);
}

/** One GSSAPI security context with the service (krb5 mechanism, mutual authentication). */
export class GssContext {
  private ctx: Ptr = null;
  private established = false;

  private constructor(
    private readonly l: Lib,
    private readonly cred: Ptr,
    private target: Ptr,
  ) {}

  static create(cred: Ptr, servicePrincipal: string): GssContext {
    const l = lib();
    return new GssContext(l, cred, importName(l, servicePrincipal));
  }

  get complete(): boolean {
    return this.established;
  }

  /** gss_init_sec_context: the next token to send (empty when there is none). */
  async step(input: Buffer | undefined): Promise<Buffer> {
    const { l } = this;
    const minor = [0];
    const ctx = [this.ctx];
    const out = {} as GssBuffer;
    const flags = GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG | GSS_C_CONF_FLAG;
    const inBuf = input === undefined ? null : { length: input.length, value: input };
    const mech = { length: KRB5_MECH.length, elements: KRB5_MECH };
    const major = await callAsync(
      l.f.init_sec_context!,
      minor,
      this.cred,
      ctx,
      this.target,
      mech,
      flags,
      0,
      null,
      inBuf,
      null,
      out,
      [0],
      [0],
    );
    this.ctx = ctx[0];
    check(major, minor);
    this.established = major === 0;
    return take(l, out);
  }

  /** gss_wrap: `confidential` seals (encrypts) as well as signs — SASL privacy; otherwise integrity only. */
  wrap(data: Buffer, confidential = false): Buffer {
    const minor = [0];
    const out = {} as GssBuffer;
    const conf = [0];
    check(this.l.f.wrap!(minor, this.ctx, confidential ? 1 : 0, 0, { length: data.length, value: data }, conf, out), minor);
    return take(this.l, out);
  }

  /** gss_unwrap: the message, and whether the peer sealed it (conf_state), which privacy requires. */
  unwrap(data: Buffer): { readonly message: Buffer; readonly confidential: boolean } {
    const minor = [0];
    const out = {} as GssBuffer;
    const conf = [0];
    check(this.l.f.unwrap!(minor, this.ctx, { length: data.length, value: data }, out, conf, [0]), minor);
    return { message: take(this.l, out), confidential: conf[0] !== 0 };
  }

  /** Client and service principal and the context's remaining lifetime (the service ticket's). */
  identity(source: KerberosIdentity['credentialSource']): KerberosIdentity {
    const { l } = this;
    const minor = [0];
    const src: Ptr[] = [null];
    const targ: Ptr[] = [null];
    const life = [0];
    check(l.f.inquire_context!(minor, this.ctx, src, targ, life, null, null, null, null), minor);
    try {
      const expires = new Date(Date.now() + (life[0] ?? 0) * 1000);
      expires.setMilliseconds(0);
      return {
        method: 'kerberos',
        clientPrincipal: displayName(l, src[0]),
        servicePrincipal: displayName(l, targ[0]),
        ticketExpiresAt: expires.toISOString(),
        credentialSource: source,
      };
    } finally {
      releaseName(l, src[0]);
      releaseName(l, targ[0]);
    }
  }

  /** Idempotent: a connection disposes its context when it closes, whichever way it closes. */
  dispose(): void {
    if (this.target) releaseName(this.l, this.target);
    if (this.ctx) this.l.f.delete_sec_context!([0], [this.ctx], null);
    this.target = null;
    this.ctx = null;
  }
}
