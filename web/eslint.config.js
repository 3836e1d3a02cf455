// ESLint for the web app: typescript-eslint, the rules of hooks, and the bulletproof-react import
// boundaries (no cycles; features never import from app/ or from another feature).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import importPlugin from 'eslint-plugin-import';
import globals from 'globals';
import { readdirSync } from 'node:fs';

// Every folder of src/features is a feature: a new one is fenced in as soon as it exists.
const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

export default tseslint.config(
  { ignores: ['dist/**', 'src/wasm-pkg/**', 'src/wasm-safety-pkg/**', 'src/wasm-rules-pkg/**', 'node_modules/**', 'src/lib/api/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks, import: importPlugin },
    settings: {
      'import/resolver': { typescript: { project: './tsconfig.json' } },
      'import/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'import/no-cycle': 'error',
      'import/no-self-import': 'error',
      'import/no-useless-path-segments': 'error',
      'import/no-restricted-paths': [
        'error',
        {
          zones: [
            // Shared code never reaches up into the shell or a feature.
            { target: ['./src/lib', './src/components'], from: ['./src/app', './src/features'] },
            // Features never import the shell, nor each other.
            { target: './src/features', from: './src/app' },
            ...features.map((f) => ({
              target: `./src/features/${f}`,
              from: './src/features',
              except: [`./${f}`],
            })),
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // A rule of kizuna-core reaches the web through the wasm package or `virtual:core-rules`, never
  // as a copy: these are the shapes a copy has taken (tests may still name the values they expect).
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.{ts,tsx}', 'src/test/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'JSXAttribute[name.name=/^(maxLength|minLength|min|max)$/] > JSXExpressionContainer > Literal[value>0]',
          message: 'A field limit is kizuna-core\'s: read it from the catalogues (core.catalogues().limits) or virtual:core-rules.',
        },
        {
          selector: 'JSXAttribute[name.name=/^(pattern|maxLength|minLength)$/] > Literal',
          message: 'A field pattern or length is kizuna-core\'s: build it from the core\'s limits.',
        },
        {
          selector: 'Literal[regex.pattern=/^\\^?(\\\\d|\\[0-9\\])\\{[0-9]+\\}\\$?$/]',
          message: 'A fixed count of digits (the e-mail code\'s) is kizuna-core\'s: ask core.isEmailCode.',
        },
        {
          selector: 'CallExpression[callee.property.name=/^to(Locale)?LowerCase$/]:has(Identifier[name=/mail/i])',
          message: 'An address is normalised by kizuna-core (core.normaliseEmail), ASCII letters only.',
        },
        {
          selector: 'Literal[value=/^E001[AB]?$/]',
          message: 'Which errors end the session is kizuna-core\'s: use sessionClearingCodes from virtual:core-rules.',
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'e2e/**/*.mjs', '*.config.{js,ts}'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
