// Generates the employer logo tiles (public/employers/{id}.svg) referenced by the core catalogue
// (core/data/employers.json: logo "employers/{id}.svg", brand colour). They are neutral monogram
// tiles, not the companies' trademarks. Run after the catalogue changes: node scripts/gen-employer-logos.mjs
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const employers = JSON.parse(readFileSync(resolve(web, '..', 'core', 'data', 'employers.json'), 'utf8'));
const out = join(web, 'public');
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
for (const e of employers) {
  const words = e.name.replace(/\(.*?\)/g, '').split(/\s+/).filter(Boolean);
  const first = words[0];
  const mono = (first.length <= 4 && first === first.toUpperCase() ? first : words.length > 1 ? words.map((w) => w[0]).join('') : first.slice(0, 2)).slice(0, 4).toUpperCase();
  const size = mono.length <= 2 ? 22 : mono.length === 3 ? 17 : 13;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48" role="img" aria-label="${esc(e.name)}"><rect width="48" height="48" rx="10" fill="${e.color || '#334155'}"/><text x="24" y="24" dy=".35em" text-anchor="middle" font-family="system-ui,sans-serif" font-weight="700" font-size="${size}" fill="#fff">${esc(mono)}</text></svg>\n`;
  const file = join(out, e.logo);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, svg);
}
console.log(`${employers.length} logos`);
