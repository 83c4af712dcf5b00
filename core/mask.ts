// The one masking of secrets in anything this tool prints: every URI in a text — state
// and HMS database URLs, catalog.uri (REST, JDBC), S3 endpoints, the Temporal address, Thrift URIs,
// table locations — keeps its shape with the secrets replaced by `***`: the password of a
// `user:password@` user-info, the value of a secret-named query or JDBC property (`?password=`,
// `;password=`, `&token=`, `X-Amz-Signature=`, …), and an Oracle thin `user/password@`. The CLI's
// output and every MigrationError message go through it. Pure; no I/O.

/** Query/property names whose value is a secret (compared case-insensitively, `-`/`_` ignored). */
const SECRET_NAMES = new Set(
  [
    'password',
    'passwd',
    'pwd',
    'pass',
    'secret',
    'clientsecret',
    'token',
    'accesstoken',
    'refreshtoken',
    'sessiontoken',
    'apikey',
    'key',
    'accesskey',
    'secretkey',
    'secretaccesskey',
    'credential',
    'credentials',
    'sig',
    'signature',
    'xamzsignature',
    'xamzcredential',
    'xamzsecuritytoken',
    'auth',
    'authorization',
    'sslpassword',
    'trustStorePassword'.toLowerCase(),
    'keyStorePassword'.toLowerCase(),
  ].map((s) => s.replace(/[-_]/g, '')),
);

const MASK = '***';

const isSecretName = (name: string): boolean => {
  let n = name;
  try {
    n = decodeURIComponent(name);
  } catch {
    // keep as written
  }
  return SECRET_NAMES.has(n.toLowerCase().replace(/[-_.]/g, ''));
};

/** `text` with the secrets of every URI in it masked (a no-op on text without any). */
export function maskSecrets(text: string): string {
  if (text === '') return text;
  return (
    text
      // user:password@ in an authority (scheme://user:password@host) — the user stays, the password goes.
      .replace(/(\/\/[^\s:@/?#"'<>]*):[^\s@/?#"'<>]*@/g, `$1:${MASK}@`)
      // Oracle thin: jdbc:oracle:thin:user/password@host
      .replace(/(:thin:[^\s/@:"']+)\/[^\s@"']+@/gi, `$1/${MASK}@`)
      // ?name=value, &name=value, ;name=value (JDBC properties) whose name is a secret's.
      // A sentence's `:` or `.` right after the value stays (`…?password=x: refused`).
      .replace(
        /([?&;])([A-Za-z0-9_.%-]+)=([^\s&;#"'<>,)]*?)([:.]?)(?=[\s&;#"'<>,)]|$)/g,
        (whole, sep: string, name: string, value: string, end: string) =>
          isSecretName(name) && value !== '' && value !== MASK ? `${sep}${name}=${MASK}${end}` : whole,
      )
  );
}

/** One URI, masked (the same function: a URI is a text). */
export const maskUri = maskSecrets;
