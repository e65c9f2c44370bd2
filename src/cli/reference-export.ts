/**
 * A strict reader of the SQL text `wrangler d1 export` writes (../shared/spec/REFERENCE-SCHEMA.md
 * §2): it never executes the file. It knows the statements such an export holds (one PRAGMA, CREATE
 * TABLE and CREATE INDEX statements, `DELETE FROM sqlite_sequence`, and one INSERT per row) and the
 * values an INSERT carries (NULL, numbers, quoted text, and text with line breaks written as
 * `replace('…','\n',char(10))`); anything else is refused with its line number. Why no library: the
 * only SQL parsers on npm parse whole dialects into trees to be walked (and accept what an export
 * never holds), while executing the file in a scratch database would run whatever it says.
 */

export type ExportValue = string | number | null;
export type ExportRow = Record<string, ExportValue>;

export class ExportFormatError extends Error {
  constructor(line: number, problem: string) {
    super(`line ${line}: ${problem}`);
    this.name = 'ExportFormatError';
  }
}

/** What the file holds: each table it creates or fills, with its rows in file order. */
export interface ReferenceExport {
  tables: Map<string, ExportRow[]>;
}

/** A cursor over the text that knows its line. */
class Reader {
  position = 0;
  line = 1;

  constructor(private readonly text: string) {}

  get done(): boolean {
    return this.position >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text[this.position + offset] ?? '';
  }

  next(): string {
    const character = this.text[this.position++] ?? '';
    if (character === '\n') this.line += 1;
    return character;
  }

  fail(problem: string): never {
    throw new ExportFormatError(this.line, problem);
  }

  /** Whitespace and comments. */
  skipSpace(): void {
    for (;;) {
      const character = this.peek();
      if (character === ' ' || character === '\n' || character === '\r' || character === '\t') this.next();
      else if (character === '-' && this.peek(1) === '-') while (!this.done && this.peek() !== '\n') this.next();
      else if (character === '/' && this.peek(1) === '*') {
        while (!this.done && !(this.peek() === '*' && this.peek(1) === '/')) this.next();
        if (this.done) this.fail('a comment that never ends');
        this.next();
        this.next();
      } else return;
    }
  }

  /** A keyword or bare identifier, as written. */
  word(): string {
    this.skipSpace();
    let word = '';
    while (/[A-Za-z0-9_]/.test(this.peek())) word += this.next();
    return word;
  }

  expectWord(expected: string): void {
    const word = this.word();
    if (word.toUpperCase() !== expected) this.fail(`expected ${expected}, found ${word === '' ? JSON.stringify(this.peek()) : word}`);
  }

  expect(character: string): void {
    this.skipSpace();
    if (this.peek() !== character) this.fail(`expected ${JSON.stringify(character)}, found ${JSON.stringify(this.peek() || 'the end of the file')}`);
    this.next();
  }

  /** Text between `quote`s, a doubled quote standing for one. */
  quoted(quote: "'" | '"'): string {
    this.expect(quote);
    let value = '';
    for (;;) {
      if (this.done) this.fail('quoted text that never ends');
      const character = this.next();
      if (character !== quote) value += character;
      else if (this.peek() === quote) value += this.next();
      else return value;
    }
  }

  /** A table or column name: double-quoted, or bare. */
  identifier(): string {
    this.skipSpace();
    if (this.peek() === '"') return this.quoted('"');
    const word = this.word();
    if (word === '') this.fail(`expected a name, found ${JSON.stringify(this.peek())}`);
    return word;
  }

  /** Skips to the `;` that ends the statement, past quoted text and comments; for statements whose text is not needed. */
  skipStatement(): void {
    for (;;) {
      this.skipSpace();
      const character = this.peek();
      if (this.done) this.fail('a statement without its closing ";"');
      if (character === ';') return void this.next();
      if (character === "'" || character === '"') this.quoted(character);
      else this.next();
    }
  }

  /** One value of a VALUES list. */
  value(): ExportValue {
    this.skipSpace();
    const character = this.peek();
    if (character === "'") return this.quoted("'");
    if (/[-+0-9.]/.test(character)) {
      let number = '';
      while (/[-+0-9.eE]/.test(this.peek())) number += this.next();
      if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(number)) this.fail(`${number} is not a number`);
      return Number(number);
    }
    const word = this.word();
    if (word.toUpperCase() === 'NULL') return null;
    if (word.toLowerCase() === 'replace') return this.replaced();
    if (word.toUpperCase() === 'X' && this.peek() === "'") this.fail('a blob value, which no column of the reference holds');
    return this.fail(`unexpected value ${word === '' ? JSON.stringify(character) : word}`);
  }

  /** `replace(<text>,'<placeholder>',char(<code>))`, the form an export gives text with line breaks. */
  private replaced(): string {
    this.expect('(');
    const text = this.value();
    if (typeof text !== 'string') this.fail('replace() of something that is not text');
    this.expect(',');
    const placeholder = this.quoted("'");
    this.expect(',');
    this.expectWord('CHAR');
    this.expect('(');
    const code = this.value();
    if (code !== 10 && code !== 13) this.fail('replace() with a character other than a line feed or a carriage return');
    this.expect(')');
    this.expect(')');
    if (placeholder === '') this.fail('replace() of an empty placeholder');
    return text.split(placeholder).join(String.fromCharCode(code));
  }

  /** A parenthesised, comma-separated list. */
  list<T>(item: () => T): T[] {
    this.expect('(');
    const items = [item()];
    for (;;) {
      this.skipSpace();
      if (this.peek() === ')') {
        this.next();
        return items;
      }
      this.expect(',');
      items.push(item());
    }
  }
}

/** `INSERT INTO "table" ("column",…) VALUES(…);` after its first two words. */
function readInsert(reader: Reader, tables: Map<string, ExportRow[]>): void {
  const table = reader.identifier();
  const columns = reader.list(() => reader.identifier());
  reader.expectWord('VALUES');
  const values = reader.list(() => reader.value());
  if (values.length !== columns.length) reader.fail(`${values.length} values for ${columns.length} columns of ${table}`);
  reader.expect(';');
  const row: ExportRow = {};
  columns.forEach((column, index) => (row[column] = values[index]!));
  let rows = tables.get(table);
  if (rows === undefined) tables.set(table, (rows = []));
  rows.push(row);
}

/** Reads the whole export; throws ExportFormatError naming the line of anything it does not expect. */
export function readReferenceExport(text: string): ReferenceExport {
  const reader = new Reader(text.startsWith('\uFEFF') ? text.slice(1) : text);
  const tables = new Map<string, ExportRow[]>();
  for (;;) {
    reader.skipSpace();
    if (reader.done) return { tables };
    const start = reader.line;
    const first = reader.word().toUpperCase();
    if (first === 'INSERT') {
      reader.expectWord('INTO');
      readInsert(reader, tables);
    } else if (first === 'PRAGMA') {
      reader.skipStatement();
    } else if (first === 'DELETE') {
      reader.expectWord('FROM');
      if (reader.identifier() !== 'sqlite_sequence') reader.fail('a DELETE of a table other than sqlite_sequence');
      reader.expect(';');
    } else if (first === 'CREATE') {
      const second = reader.word().toUpperCase();
      const kind = second === 'UNIQUE' ? reader.word().toUpperCase() : second;
      if (kind !== 'TABLE' && kind !== 'INDEX') throw new ExportFormatError(start, `CREATE ${kind}, which an export of the reference never holds`);
      if (kind === 'TABLE') {
        // Tables without rows still show that the export has them.
        const name = reader.identifier();
        const table = name.toUpperCase() === 'IF' ? (reader.expectWord('NOT'), reader.expectWord('EXISTS'), reader.identifier()) : name;
        if (!tables.has(table)) tables.set(table, []);
      }
      reader.skipStatement();
    } else {
      throw new ExportFormatError(start, `a statement starting with ${first === '' ? JSON.stringify(reader.peek()) : first}, which an export never holds`);
    }
  }
}
