// The REST catalog's wire forms (apache/iceberg open-api, docs/design/iceberg-spec.md §6), shared by the table
// client (rest.ts) and the view client (rest-views.ts): JSON bodies parsed with core/iceberg/json
// (63-bit ids stay exact), LoadTableResult with its credentials split off, paged listings, and a
// commit's schema update as requirements + updates. A body that is not what the spec says is
// CATALOG_BAD_RESPONSE naming the request.
import type { LoadedTable, SnapshotCommit, TableIdent } from '../../core/catalog/catalog';
import { isCredentialKey, pickCredentials } from '../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { JsonValue } from '../../core/iceberg/json';
import { parseJson, stringifyJson } from '../../core/iceberg/json';
import { fromMetadataJson } from '../../core/iceberg/metadata-json';
import { schemaToJson } from '../../core/iceberg/schema-json';
import { TableProperty } from '../../core/iceberg/spec-constants';
import type { RestHttp, RestRequest } from './rest-http';

export type Obj = { readonly [k: string]: JsonValue };
export const isObj = (v: JsonValue | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const strMap = (v: JsonValue | undefined): Record<string, string> =>
  isObj(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

export function badResponse(what: string, why: string): MigrationError {
  return new MigrationError(ErrorCode.CATALOG_BAD_RESPONSE, `${what}: ${why}`, { request: what });
}

export function parseBody(text: string, what: string): Obj {
  let v: JsonValue;
  try {
    v = parseJson(text);
  } catch {
    throw badResponse(what, 'the body is not JSON');
  }
  if (!isObj(v)) throw badResponse(what, 'the body is not a JSON object');
  return v;
}

export function metadataLocationOf(body: Obj, what: string): string {
  const loc = body['metadata-location'];
  if (typeof loc !== 'string' || loc === '') throw badResponse(what, 'no metadata-location');
  return loc;
}

/** A LoadTableResult: metadata parsed, storage credentials picked for the table's location and kept out of `config`. */
export function loadResult(ident: TableIdent, text: string, what: string): LoadedTable {
  const body = parseBody(text, what);
  const metadataLocation = metadataLocationOf(body, what);
  if (!isObj(body.metadata)) throw badResponse(what, 'no metadata object');
  const metadata = fromMetadataJson(stringifyJson(body.metadata));
  const config = strMap(body.config);
  const storage = Array.isArray(body['storage-credentials'])
    ? body['storage-credentials']
        .filter(isObj)
        .map((c) => ({ prefix: typeof c.prefix === 'string' ? c.prefix : '', config: strMap(c.config) }))
    : [];
  const credentials = pickCredentials(metadata.location, storage, config);
  const publicConfig = Object.fromEntries(Object.entries(config).filter(([k]) => !isCredentialKey(k)));
  return { ident, metadataLocation, metadata, config: publicConfig, ...(credentials === undefined ? {} : { credentials }) };
}

/** Every page of a listing (`pageToken` / `next-page-token`), each entry converted by `item` (undefined: bad entry). */
export async function pages<T>(http: RestHttp, req: RestRequest, key: string, item: (v: JsonValue) => T | undefined): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  do {
    const res = await http.call({ ...req, query: { ...req.query, pageToken: token } });
    const body = parseBody(res.text, `${req.method} ${req.path}`);
    const list = body[key];
    if (!Array.isArray(list)) throw badResponse(`${req.method} ${req.path}`, `no '${key}' list`);
    for (const v of list) {
      const t = item(v);
      if (t === undefined) throw badResponse(`${req.method} ${req.path}`, `bad '${key}' entry`);
      out.push(t);
    }
    const next = body['next-page-token'];
    token = typeof next === 'string' && next !== '' ? next : undefined;
  } while (token !== undefined);
  return out;
}

/**
 * A commit's schema update (SnapshotCommit.schemaChange) as REST requirements and updates: the
 * base's current schema and last column id asserted, the new schema added and made current (-1:
 * the one just added), the name mapping set. None for a commit without one.
 */
export function schemaUpdate(c: SnapshotCommit): { requirements: JsonValue[]; updates: JsonValue[] } {
  if (c.schemaChange === undefined) return { requirements: [], updates: [] };
  const m = c.metadata;
  const schema = m.schemas.find((s) => s.schemaId === m.currentSchemaId);
  if (schema === undefined) throw new MigrationError(ErrorCode.INTERNAL, 'a schema change without its current schema');
  const mapping = m.properties[TableProperty.NAME_MAPPING_DEFAULT];
  return {
    requirements: [
      { type: 'assert-current-schema-id', 'current-schema-id': c.schemaChange.schemaId },
      { type: 'assert-last-assigned-field-id', 'last-assigned-field-id': c.schemaChange.lastColumnId },
    ],
    updates: [
      { action: 'add-schema', schema: schemaToJson(schema) as unknown as JsonValue, 'last-column-id': m.lastColumnId },
      { action: 'set-current-schema', 'schema-id': -1 },
      ...(mapping === undefined ? [] : [{ action: 'set-properties', updates: { [TableProperty.NAME_MAPPING_DEFAULT]: mapping } }]),
    ],
  };
}
