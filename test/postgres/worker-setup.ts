import { afterAll } from 'vitest';
import { dropAppDatabases } from './app-databases.ts';

// Setup file of the postgres project: after each test file, drop the databases its apps used.
afterAll(dropAppDatabases);
