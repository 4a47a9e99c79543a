import { join, resolve } from 'node:path';

/** The repository root: tests run commands from here and find fixtures under it. */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * The built CLI (`npm test` builds before vitest runs). EARSHOT_TEST_MAIN points
 * the tests at another build, e.g. a private one while dist/ is being rebuilt.
 */
export const CLI = process.env.EARSHOT_TEST_MAIN ?? join(ROOT, 'dist', 'cli', 'main.js');
