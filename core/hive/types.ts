// The Hive column type grammar (as HMS stores it in COLUMNS_V2.TYPE_NAME / FieldSchema.type) parsed
// into an AST, and printed back in canonical lower-case form. Pure; no I/O.
//
// Grammar (case-insensitive, whitespace between tokens ignored), after Hive's TypeInfoUtils parser
// and serdeConstants type names:
//   type      := primitive | array<type> | map<type,type> | struct<field(,field)*> | uniontype<type(,type)*>
//   field     := name ':' type [COMMENT 'text']          name: bare (no `:<>,` or space) or `back``quoted`
//   primitive := tinyint | smallint | int | integer | bigint | float | double [precision]
//              | decimal [(p[,s])] | string | char(n) | varchar(n) | boolean | binary | date
//              | timestamp [with local time zone] | interval_year_month | interval_day_time | void
import { ErrorCode, MigrationError } from '../errors';

export const PRIMITIVE_NAMES = [
  'tinyint',
  'smallint',
  'int',
  'bigint',
  'float',
  'double',
  'string',
  'boolean',
  'binary',
  'date',
  'timestamp',
  'timestamp with local time zone',
  'interval_year_month',
  'interval_day_time',
  'void',
] as const;
export type PrimitiveName = (typeof PRIMITIVE_NAMES)[number];

/** Hive's limits (HiveDecimal.MAX_PRECISION, HiveChar.MAX_CHAR_LENGTH, HiveVarchar.MAX_VARCHAR_LENGTH). */
export const DECIMAL_MAX_PRECISION = 38;
export const DECIMAL_DEFAULT = { precision: 10, scale: 0 } as const;
export const CHAR_MAX_LENGTH = 255;
export const VARCHAR_MAX_LENGTH = 65535;
/** Nesting bound: deeper types are rejected (a coded error, never a stack overflow). */
export const MAX_TYPE_DEPTH = 100;

export interface StructField {
  readonly name: string;
  readonly type: HiveType;
  readonly comment: string | null;
}

export type HiveType =
  | { readonly kind: 'primitive'; readonly name: PrimitiveName }
  | { readonly kind: 'decimal'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'char'; readonly length: number }
  | { readonly kind: 'varchar'; readonly length: number }
  | { readonly kind: 'array'; readonly element: HiveType }
  | { readonly kind: 'map'; readonly key: HiveType; readonly value: HiveType }
  | { readonly kind: 'struct'; readonly fields: readonly StructField[] }
  | { readonly kind: 'union'; readonly members: readonly HiveType[] };

const ALIASES: Readonly<Record<string, PrimitiveName>> = { integer: 'int' };
const SIMPLE: ReadonlySet<string> = new Set<string>(PRIMITIVE_NAMES);

class Parser {
  pos = 0;
  constructor(
    private readonly src: string,
    private readonly column: string | null,
  ) {}

  fail(message: string, at = this.pos): never {
    const where = this.column === null ? 'a column' : `column '${this.column}'`;
    throw new MigrationError(ErrorCode.HIVE_TYPE_INVALID, `invalid Hive type for ${where}: ${message} at position ${at} in '${this.src}'`, {
      column: this.column,
      type: this.src,
      position: at,
    });
  }

  skipWs(): void {
    while (this.pos < this.src.length && /\s/.test(this.src.charAt(this.pos))) this.pos++;
  }

  peek(): string {
    this.skipWs();
    return this.src.charAt(this.pos);
  }

  expect(ch: string): void {
    if (this.peek() !== ch)
      this.fail(`expected '${ch}'${this.pos < this.src.length ? ` but found '${this.src.charAt(this.pos)}'` : ' but the type ended'}`);
    this.pos++;
  }

  word(): string {
    this.skipWs();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.src.slice(this.pos));
    if (m === null)
      this.fail(
        this.pos < this.src.length
          ? `expected a type name but found '${this.src.charAt(this.pos)}'`
          : 'expected a type name but the type ended',
      );
    this.pos += m[0].length;
    return m[0].toLowerCase();
  }

  /** Consume the following words if they are exactly `words` (case-insensitive); else consume nothing. */
  tryWords(words: readonly string[]): boolean {
    const start = this.pos;
    for (const w of words) {
      this.skipWs();
      const m = /^[A-Za-z_]+/.exec(this.src.slice(this.pos));
      if (m === null || m[0].toLowerCase() !== w) {
        this.pos = start;
        return false;
      }
      this.pos += m[0].length;
    }
    return true;
  }

  int(): number {
    this.skipWs();
    const start = this.pos;
    const m = /^[0-9]+/.exec(this.src.slice(this.pos));
    if (m === null) this.fail('expected a number');
    this.pos += m[0].length;
    if (m[0].length > 9) this.fail(`number ${m[0]} is out of range`, start);
    return Number(m[0]);
  }

  type(depth: number): HiveType {
    if (depth > MAX_TYPE_DEPTH) this.fail(`type nesting deeper than ${MAX_TYPE_DEPTH}`);
    this.skipWs();
    const start = this.pos;
    const w = this.word();
    switch (w) {
      case 'array': {
        this.expect('<');
        const element = this.type(depth + 1);
        this.expect('>');
        return { kind: 'array', element };
      }
      case 'map': {
        this.expect('<');
        const key = this.type(depth + 1);
        this.expect(',');
        const value = this.type(depth + 1);
        this.expect('>');
        return { kind: 'map', key, value };
      }
      case 'struct':
        return this.struct(depth);
      case 'uniontype': {
        this.expect('<');
        const members = [this.type(depth + 1)];
        while (this.peek() === ',') {
          this.pos++;
          members.push(this.type(depth + 1));
        }
        this.expect('>');
        return { kind: 'union', members };
      }
      case 'decimal':
        return this.decimal(start);
      case 'char':
      case 'varchar':
        return this.charLike(w, start);
      case 'double':
        this.tryWords(['precision']);
        return { kind: 'primitive', name: 'double' };
      case 'timestamp':
        return {
          kind: 'primitive',
          name: this.tryWords(['with', 'local', 'time', 'zone']) ? 'timestamp with local time zone' : 'timestamp',
        };
      default: {
        const name = ALIASES[w] ?? (SIMPLE.has(w) ? (w as PrimitiveName) : undefined);
        if (name === undefined || name === 'timestamp with local time zone') this.fail(`unknown type '${w}'`, start);
        return { kind: 'primitive', name };
      }
    }
  }

  decimal(start: number): HiveType {
    if (this.peek() !== '(') return { kind: 'decimal', ...DECIMAL_DEFAULT };
    this.pos++;
    const precision = this.int();
    let scale = 0;
    if (this.peek() === ',') {
      this.pos++;
      scale = this.int();
    }
    this.expect(')');
    if (precision < 1 || precision > DECIMAL_MAX_PRECISION)
      this.fail(`decimal precision ${precision} is outside 1..${DECIMAL_MAX_PRECISION}`, start);
    if (scale > precision) this.fail(`decimal scale ${scale} is greater than precision ${precision}`, start);
    return { kind: 'decimal', precision, scale };
  }

  charLike(kind: 'char' | 'varchar', start: number): HiveType {
    if (this.peek() !== '(') this.fail(`${kind} needs a length, e.g. ${kind}(10)`, start);
    this.pos++;
    const length = this.int();
    this.expect(')');
    const max = kind === 'char' ? CHAR_MAX_LENGTH : VARCHAR_MAX_LENGTH;
    if (length < 1 || length > max) this.fail(`${kind} length ${length} is outside 1..${max}`, start);
    return { kind, length };
  }

  struct(depth: number): HiveType {
    this.expect('<');
    const fields: StructField[] = [];
    if (this.peek() === '>') this.fail('a struct needs at least one field');
    for (;;) {
      const name = this.fieldName();
      this.expect(':');
      const type = this.type(depth + 1);
      const comment = this.tryWords(['comment']) ? this.quoted() : null;
      fields.push({ name, type, comment });
      const next = this.peek();
      if (next === ',') {
        this.pos++;
        continue;
      }
      this.expect('>');
      return { kind: 'struct', fields };
    }
  }

  fieldName(): string {
    this.skipWs();
    if (this.src.charAt(this.pos) === '`') {
      const start = this.pos++;
      let name = '';
      for (;;) {
        if (this.pos >= this.src.length) this.fail('unterminated `quoted` field name', start);
        const ch = this.src.charAt(this.pos++);
        if (ch !== '`') name += ch;
        else if (this.src.charAt(this.pos) === '`') {
          name += '`';
          this.pos++;
        } else break;
      }
      if (name === '') this.fail('empty field name', start);
      return name;
    }
    const m = /^[^\s:<>,`]+/.exec(this.src.slice(this.pos));
    if (m === null)
      this.fail(
        this.pos < this.src.length
          ? `expected a field name but found '${this.src.charAt(this.pos)}'`
          : 'expected a field name but the type ended',
      );
    this.pos += m[0].length;
    return m[0];
  }

  quoted(): string {
    this.skipWs();
    const start = this.pos;
    const q = this.src.charAt(this.pos);
    if (q !== "'" && q !== '"') this.fail('expected a quoted comment after COMMENT');
    this.pos++;
    let out = '';
    for (;;) {
      if (this.pos >= this.src.length) this.fail('unterminated comment string', start);
      const ch = this.src.charAt(this.pos++);
      if (ch === q) return out;
      if (ch === '\\' && this.pos < this.src.length) out += this.src.charAt(this.pos++);
      else out += ch;
    }
  }
}

/**
 * Parse a Hive type string. `column` names the column in the error (`HIVE_TYPE_INVALID`, context
 * `{ column, type, position }`); nothing but a MigrationError is ever thrown.
 */
export function parseHiveType(type: string, column: string | null = null): HiveType {
  const p = new Parser(type, column);
  const ast = p.type(0);
  p.skipWs();
  if (p.pos < type.length) p.fail(`unexpected '${type.charAt(p.pos)}' after the type`);
  return ast;
}

const BARE_NAME = /^[A-Za-z0-9_$.]+$/;

function formatName(name: string): string {
  return BARE_NAME.test(name) ? name : `\`${name.replace(/`/g, '``')}\``;
}

function formatComment(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Canonical form: lower-case keywords, no spaces, aliases resolved, decimal always `(p,s)`. */
export function formatHiveType(t: HiveType): string {
  switch (t.kind) {
    case 'primitive':
      return t.name;
    case 'decimal':
      return `decimal(${t.precision},${t.scale})`;
    case 'char':
    case 'varchar':
      return `${t.kind}(${t.length})`;
    case 'array':
      return `array<${formatHiveType(t.element)}>`;
    case 'map':
      return `map<${formatHiveType(t.key)},${formatHiveType(t.value)}>`;
    case 'union':
      return `uniontype<${t.members.map(formatHiveType).join(',')}>`;
    case 'struct':
      return `struct<${t.fields
        .map((f) => `${formatName(f.name)}:${formatHiveType(f.type)}${f.comment === null ? '' : ` comment ${formatComment(f.comment)}`}`)
        .join(',')}>`;
  }
}
