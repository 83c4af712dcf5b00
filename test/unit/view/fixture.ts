// Fakes for a view's apply steps (no components, the real SQL parser): a Hive view `lb.v` over
// `lb.orders`, an Iceberg view catalog in memory, a state store keeping one record and its events.
import type { OpsDeps } from '../../../ops/context';
import { opsContext } from '../../../ops/context';
import { viewOps } from '../../../ops/views';
import { NodeSqlViewParser } from '../../../adapters/sql/view-deps';
import type { IcebergViewCatalog, LoadedView, TableIdent, ViewDefinition } from '../../../core/catalog/catalog';
import { formatTableIdent } from '../../../core/catalog/catalog';
import type { TableRecord, TableUpdate } from '../../../core/state/store';
import { table } from '../assess/fixture';

export const PLAN = 'p'.repeat(64);
export const viewTable = (sql: string) =>
  table({
    database: 'lb',
    name: 'v',
    tableType: 'VIRTUAL_VIEW',
    viewExpandedText: sql,
    sd: {
      location: null,
      inputFormat: null,
      serde: { name: null, serializationLib: null, parameters: {} },
      columns: [{ name: 'id', type: 'bigint', comment: null }],
    },
  });

function fakeViews(existing: Map<string, LoadedView>): IcebergViewCatalog & { created: ViewDefinition[]; dropped: string[] } {
  const created: ViewDefinition[] = [];
  const dropped: string[] = [];
  const loaded = (ident: TableIdent, d: ViewDefinition): LoadedView => ({
    ident,
    metadataLocation: `s3://w/${ident.name}/m.json`,
    viewUuid: 'u',
    ...d,
  });
  return {
    created,
    dropped,
    viewExists: (i) => Promise.resolve(existing.has(formatTableIdent(i))),
    loadView: (i) => Promise.resolve(existing.get(formatTableIdent(i))!),
    createView: (i, d) => {
      const k = formatTableIdent(i);
      const prior = existing.get(k);
      if (prior !== undefined) return Promise.resolve({ outcome: 'exists' as const, view: prior });
      created.push(d);
      existing.set(k, loaded(i, d));
      return Promise.resolve({ outcome: 'created' as const, view: existing.get(k)! });
    },
    dropView: (i) => {
      dropped.push(formatTableIdent(i));
      return Promise.resolve({ dropped: existing.delete(formatTableIdent(i)) });
    },
  };
}

export function setup(o: {
  sql?: string;
  extra?: Partial<OpsDeps>;
  views?: boolean;
  baseStatus?: TableRecord['status'] | null;
  inCatalog?: string[];
  existing?: Map<string, LoadedView>;
}) {
  const view = viewTable(o.sql ?? 'SELECT `orders`.`id` FROM `lb`.`orders`');
  let rec = {
    planHash: PLAN,
    tableId: 'lb.v',
    wave: 2,
    status: 'original-saved',
    original: { table: view, partitions: [] },
    originalDigest: 'd',
    target: null,
    metadataLocation: null,
    validation: null,
  } as unknown as TableRecord;
  const base =
    o.baseStatus === null
      ? null
      : ({
          planHash: PLAN,
          tableId: 'lb.orders',
          status: o.baseStatus ?? 'migrated',
          target: 'lake:ice_lb.orders',
        } as unknown as TableRecord);
  const events: { action: string; details: Record<string, unknown> }[] = [];
  const views = fakeViews(o.existing ?? new Map());
  const deps = {
    namespacePrefix: 'ice_',
    toolVersion: '0.3.0',
    actor: 'test',
    viewSql: new NodeSqlViewParser(),
    catalog: {
      name: 'lake',
      createNamespace: () => Promise.resolve({ created: false }),
      tableExists: (i: TableIdent) => Promise.resolve((o.inCatalog ?? []).includes(formatTableIdent(i))),
      ...(o.views === false ? {} : { views }),
    },
    state: {
      getPlan: () => Promise.resolve({ hash: PLAN, targetCatalog: 'lake' }),
      getTable: (_p: string, id: string) =>
        id === 'lb.v' ? Promise.resolve(rec) : base === null ? Promise.reject(new Error('no record')) : Promise.resolve(base),
      recordStep: (_p: string, _t: string, u: TableUpdate, e: { action: string; details: Record<string, unknown> }) => {
        rec = { ...rec, ...u } as TableRecord;
        events.push(e);
        return Promise.resolve(e);
      },
      appendAudit: (e: { action: string; details: Record<string, unknown> }) => {
        events.push(e);
        return Promise.resolve(e);
      },
    },
    ...o.extra,
  } as unknown as OpsDeps;
  const c = opsContext(deps);
  return { c, acts: viewOps(c), views, events, rec: () => rec, ref: { planHash: PLAN, tableId: 'lb.v' } };
}
