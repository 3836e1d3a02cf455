import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '@/lib/query';

const src = join(__dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name.startsWith('wasm-') ? [] : sources(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('query keys', () => {
  it('every key is paired with one loader (queryOptions): none is unused, none loaded two ways', () => {
    const code = sources(src).map((f) => readFileSync(f, 'utf8')).join('\n');
    for (const name of Object.keys(queryKeys)) {
      expect(code.match(new RegExp(`queryOptions\\(queryKeys\\.${name}\\b`, 'g'))?.length ?? 0, name).toBe(1);
    }
  });
});

describe('loads', () => {
  it('a loader that a query pairs with a key is called by no screen on its own', () => {
    const files = sources(src);
    const queries = files.filter((f) => f.endsWith('/api/queries.ts') || f.endsWith('/lib/shared-queries.ts'));
    expect(queries.length).toBeGreaterThanOrEqual(4);
    // `xApi.load(` calls inside a query file are the loaders it pairs with keys.
    const loaders = new Set(
      queries.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\b(\w+Api\.\w+)\(/g)].map((m) => m[1])),
    );
    expect(loaders.has('chatApi.messages') && loaders.has('dataExportApi.status')).toBe(true);
    // Screens and hooks reach them only through the data module (useQuery, prefetch, fetchQuery).
    const screens = files.filter((f) => !f.includes('/api/') && !f.endsWith('/lib/shared-queries.ts'));
    const called = screens.flatMap((f) => {
      const code = readFileSync(f, 'utf8');
      return [...loaders].filter((l) => code.includes(`${l}(`)).map((l) => `${l} in ${f.slice(src.length)}`);
    });
    expect(called).toEqual([]);
  });
});
