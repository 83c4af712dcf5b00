// The catalog's authentication settings and the check that a URI carries no secret in the clear
// (core/config/schema.ts merges them into the one schema). Pure; no I/O.
import { z } from 'zod';

const authEnvName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name (A-Z, 0-9, _)');

/**
 * How a REST catalog authenticates us (docs/deploying.md "Authentication: Iceberg catalog"). The
 * config names where secrets are (environment variables); it never holds one.
 */
export const catalogAuthSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('bearer'),
      /** Environment variable holding a static bearer token (sent as `Authorization: Bearer …`). */
      tokenEnv: authEnvName,
    })
    .strict(),
  z
    .object({
      type: z.literal('oauth2'),
      /** The token endpoint (client credentials grant, RFC 6749 §4.4); default: the catalog's `oauth2-server-uri`, else `<uri>/v1/oauth/tokens`. */
      tokenEndpoint: z
        .string()
        .regex(/^https?:\/\/[^/]+/, 'expected http(s)://host[:port][/path]')
        .optional(),
      /** The OAuth2 client id, written here (it is not a secret); or use clientIdEnv. */
      clientId: z.string().min(1).optional(),
      /** Environment variable holding the client id (instead of clientId). */
      clientIdEnv: authEnvName.optional(),
      /** Environment variable holding the client secret (never the secret itself). */
      clientSecretEnv: authEnvName,
      /** The scope asked for (default `catalog`, as Iceberg's Java client). */
      scope: z.string().min(1).optional(),
    })
    .strict()
    .refine((a) => (a.clientId === undefined) !== (a.clientIdEnv === undefined), {
      message: 'set exactly one of clientId and clientIdEnv',
      path: ['clientId'],
    }),
  z
    .object({
      type: z.literal('sigv4'),
      /** The AWS service the catalog is: `glue` (Glue's Iceberg REST endpoint) or `s3tables` (S3 Tables). */
      service: z.enum(['glue', 's3tables']),
      /** The signing region (default: AWS_REGION, then AWS_DEFAULT_REGION). */
      region: z.string().min(1).optional(),
      /** The signing name when it differs from the service (an endpoint behind a proxy); default the service. */
      signingName: z
        .string()
        .regex(/^[a-z0-9-]+$/)
        .optional(),
    })
    .strict(),
]);
export type CatalogAuthConfig = z.output<typeof catalogAuthSchema>;

/** What secret an http(s)/thrift URI carries in the clear (user info, or a query parameter named like one), else null. */
export function uriSecret(uri: string): string | null {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(uri);
  if (m !== null) return 'credentials (user:password@)';
  const q = uri.indexOf('?');
  if (q < 0) return null;
  for (const part of uri.slice(q + 1).split('&')) {
    const name = decodeURIComponentSafe(part.split('=')[0] ?? '');
    if (/token|secret|password|passwd|credential|api[-_]?key|signature/i.test(name)) return `a secret query parameter (${name})`;
  }
  return null;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
