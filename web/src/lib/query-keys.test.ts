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
