import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers' import graph (static imports and re-exports, type-only included): no cycles, the
 * domain never reaches up into workflows/, activities/ or api/ (shared shapes live in the domain),
 * and the transports (api/) never reach into workflows/ or activities/.
 */
const ROOT = resolve(__dirname, '../..');
const LAYERS = ['domain', 'api', 'activities', 'workflows', 'iso20022'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const files = LAYERS.flatMap((l) => tsFiles(join(ROOT, l)));
  const known = new Set(files);
  const options: ts.CompilerOptions = { moduleResolution: ts.ModuleResolutionKind.Node10 };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const deps = importedFiles
      .filter((i) => i.fileName.startsWith('.'))
      .map((i) => ts.resolveModuleName(i.fileName, file, options, ts.sys).resolvedModule?.resolvedFileName)
      .filter((f): f is string => f !== undefined && known.has(f));
    graph.set(relative(ROOT, file), deps.map((d) => relative(ROOT, d)));
  }
  return graph;
}

/** Strongly connected groups of more than one file (Tarjan): each is at least one import cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import graph of domain, api, activities, workflows and iso20022', () => {
  const graph = importGraph();

  it('has no import cycles', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it('the domain imports nothing from workflows/, activities/ or api/', () => {
    const upward = [...graph].flatMap(([file, deps]) =>
      file.startsWith('domain/') ? deps.filter((d) => !d.startsWith('domain/') && !d.startsWith('iso20022/')).map((d) => `${file} -> ${d}`) : [],
    );
    expect(upward).toEqual([]);
  });

  it('api/ imports nothing from activities/ or workflows/: a transport calls the domain, which starts or signals workflows itself', () => {
    const upward = [...graph].flatMap(([file, deps]) =>
      file.startsWith('api/') ? deps.filter((d) => d.startsWith('activities/') || d.startsWith('workflows/')).map((d) => `${file} -> ${d}`) : [],
    );
    expect(upward).toEqual([]);
  });

  it('iso20022/ (messages: parse, generate, validate) depends on no other layer: its refusals are its own coded errors', () => {
    const upward = [...graph].flatMap(([file, deps]) =>
      file.startsWith('iso20022/') ? deps.filter((d) => !d.startsWith('iso20022/')).map((d) => `${file} -> ${d}`) : [],
    );
    expect([...graph.keys()].filter((f) => f.startsWith('iso20022/')).length).toBeGreaterThan(5);
    expect(upward).toEqual([]);
  });

  it('the Temporal-failure helper that workflows bundle imports only @temporalio/common', () => {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, 'domain/temporal/failures.ts'), 'utf8'), true, true);
    expect(importedFiles.map((i) => i.fileName)).toEqual(['@temporalio/common']);
  });
});
