import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // bench/.cache holds the benchmark's own builds and seeded stores (see bench/.gitignore).
  { ignores: ['node_modules/', 'data/', 'dist/', 'web/dist/', 'coverage/', 'bench/.cache/', '.test-build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    files: ['bench/**', 'scripts/**', 'bin/**', 'src/main.ts', 'src/cli/**'],
    rules: { 'no-console': 'off' },
  },
);
