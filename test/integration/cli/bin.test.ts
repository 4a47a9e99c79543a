import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../support/paths.js';

const run = promisify(execFile);

/** `npm run build` starts from an empty dist/: the CLI it writes must still be a program a user can run. */
describe('the built CLI in a checkout', () => {
  it('is executable, so `npx earshot` runs it', async () => {
    const main = join(ROOT, 'dist', 'cli', 'main.js');
    expect(statSync(main).mode & 0o111).toBe(0o111);
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const { stdout } = await run('npx', ['--no-install', 'earshot', '--version'], { cwd: ROOT, timeout: 60_000 });
    expect(stdout.trim()).toBe(version);
  }, 90_000);
});
