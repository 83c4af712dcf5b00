// JSON with exact 64-bit integers. Iceberg ids (snapshot-id, parent-snapshot-id) are longs that
// Java fills with 63 random bits, beyond JavaScript's 2^53; JSON.parse would round them. Pure; no I/O.
//   parseJson: like JSON.parse, but an integer literal outside the safe range becomes a bigint.
//   stringifyJson: like JSON.stringify(v, null, 2), writing bigints as bare integers.
import { ErrorCode, MigrationError } from '../errors';

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [k: string]: JsonValue };

class Reader {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `invalid JSON: ${what} at offset ${this.pos}`, { offset: this.pos });
  }

  ws(): void {
    while (this.pos < this.s.length && ' \t\n\r'.includes(this.s.charAt(this.pos))) this.pos++;
  }

  value(depth: number): JsonValue {
    if (depth > 512) this.fail('nesting too deep');
    this.ws();
    const c = this.s.charAt(this.pos);
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const [lit, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.s.startsWith(lit, this.pos)) {
        this.pos += lit.length;
        return v;
      }
    }
    return this.fail(c === '' ? 'unexpected end' : `unexpected '${c}'`);
  }

  object(depth: number): JsonValue {
    this.pos++;
    const out: { [k: string]: JsonValue } = {};
    this.ws();
    if (this.s.charAt(this.pos) === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s.charAt(this.pos) !== '"') this.fail('expected a key');
      const k = this.string();
      this.ws();
      if (this.s.charAt(this.pos) !== ':') this.fail("expected ':'");
      this.pos++;
      Object.defineProperty(out, k, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.s.charAt(this.pos++);
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }

  array(depth: number): JsonValue {
    this.pos++;
    const out: JsonValue[] = [];
    this.ws();
    if (this.s.charAt(this.pos) === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s.charAt(this.pos++);
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }

  string(): string {
    const start = this.pos;
    let i = start + 1;
    while (i < this.s.length && this.s.charCodeAt(i) !== 0x22) i += this.s.charCodeAt(i) === 0x5c ? 2 : 1;
    if (i >= this.s.length) this.fail('unterminated string');
    this.pos = i + 1;
    try {
      return JSON.parse(this.s.slice(start, i + 1)) as string;
    } catch {
      return this.fail('bad string');
    }
  }

  number(): number | bigint {
    const m = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.s.slice(this.pos, this.pos + 400));
    if (m === null) this.fail('bad number');
    this.pos += m[0].length;
    if (m[1] === undefined && m[2] === undefined) {
      const n = Number(m[0]);
      return Number.isSafeInteger(n) ? n : BigInt(m[0]);
    }
    return Number(m[0]);
  }
}

export function parseJson(text: string): JsonValue {
  const r = new Reader(text);
  const v = r.value(0);
  r.ws();
  if (r.pos !== text.length) r.fail('trailing content');
  return v;
}

/** Pretty JSON (2 spaces) with bigints as integer literals; undefined members are skipped. */
export function stringifyJson(value: unknown): string {
  const marks = new Map<string, string>();
  let n = 0;
  const text = JSON.stringify(
    value,
    (_k, v: unknown) => {
      if (typeof v !== 'bigint') return v;
      const mark = `\u0000bigint${n++}\u0000`;
      marks.set(mark, v.toString());
      return mark;
    },
    2,
  );
  return text.replace(/"\\u0000bigint\d+\\u0000"/g, (m) => marks.get(JSON.parse(m) as string) ?? m);
}
