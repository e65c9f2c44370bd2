import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const STORE = path.join(SRC, 'store');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Each store file and the files its relative imports (type-only included) name. */
function storeImports(): Map<string, string[]> {
  const imports = new Map<string, string[]>();
  for (const file of sourceFiles(STORE)) {
    const source = readFileSync(file, 'utf8');
    const targets = [...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom '(\.[^']+)'/gms)].map((match) => path.resolve(path.dirname(file), match[1]!));
    imports.set(file, targets);
  }
  return imports;
}

const relative = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

/** The tables the features add to the store's Database (each `…Tables` interface of a tables.ts). */
function featureTables(): string[] {
  return sourceFiles(SRC)
    .filter((file) => path.basename(file) === 'tables.ts')
    .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/^export interface \w+Tables \{([^}]*)\}/gm)])
    .flatMap((match) => [...match[1]!.matchAll(/^\s*(\w+):/gm)].map((column) => column[1]!));
}

const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

describe('the store stands on the ground', () => {
  it('imports nothing outside store/: no feature, no shared folder', () => {
    const outside = [...storeImports()].flatMap(([file, targets]) =>
      targets.filter((target) => !target.startsWith(STORE + path.sep)).map((target) => `${relative(file)} -> ${relative(target)}`),
    );
    expect(outside).toEqual([]);
  });

  it("names no feature's table outside its migrations (a feature's work before the COMMIT is a participant it is given)", () => {
    const tables = featureTables();
    expect(tables).toEqual(expect.arrayContaining(['conversations', 'messages', 'webhook_outbox']));
    const named = sourceFiles(STORE)
      .filter((file) => !file.includes(`${path.sep}migrations${path.sep}`))
      .flatMap((file) => {
        const code = withoutComments(readFileSync(file, 'utf8'));
        return tables.filter((table) => new RegExp(`\\b${table}\\b`).test(code)).map((table) => `${relative(file)}: ${table}`);
      });
    expect(named).toEqual([]);
  });

  it('has no import cycle among its files', () => {
    const imports = storeImports();
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      state.set(file, 'open');
      for (const target of imports.get(file) ?? []) {
        if (state.get(target) === 'open') cycles.push([...trail.slice(trail.indexOf(target)), target].map(relative).join(' -> '));
        else if (!state.has(target)) visit(target, [...trail, target]);
      }
      state.set(file, 'done');
    };
    for (const file of imports.keys()) if (!state.has(file)) visit(file, [file]);
    expect(cycles).toEqual([]);
  });
});
