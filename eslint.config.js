// Lint rules that encode the project's style: no default exports, no `export *`,
// `import type` for types, `node:` for built-ins.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config({ ignores: ['node_modules/**', 'data/**', 'dist/**', 'coverage/**'] }, js.configs.recommended, ...tseslint.configs.recommended, {
  files: ['**/*.ts'],
  rules: {
    '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports' }],
    '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    'no-restricted-syntax': [
      'error',
      { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
      { selector: 'ExportAllDeclaration', message: 'Export names explicitly; no `export *`.' },
    ],
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex:
              '^(fs|path|os|net|dgram|http|https|crypto|url|util|events|stream|child_process|worker_threads|cluster|timers|assert|zlib|readline|tls|dns)(/.*)?$',
            message: 'Import Node built-ins with the node: prefix.',
          },
        ],
      },
    ],
  },
});
