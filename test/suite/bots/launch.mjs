/**
 * Suite bots for the end-to-end tests: the real reference bot, started the way
 * Pipecat's default spawn template starts a Python bot
 * (`{python} {bot} -t eval --port {port}`, with --python set to Node). Each bot
 * file picks the reference bot's switches; this module runs the built CLI in
 * this very process, so the process the suite stops is the bot itself.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MAIN = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));

export async function runRefbot(extraArgs) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--port');
  if (at < 0 || !argv[at + 1]) {
    console.error(`${process.argv[1]}: expected --port N (got ${argv.join(' ')})`);
    process.exit(2);
  }
  // Lets a test prove that every bot it caused was stopped.
  if (process.env.EARSHOT_TEST_PID_DIR) {
    mkdirSync(process.env.EARSHOT_TEST_PID_DIR, { recursive: true });
    writeFileSync(
      join(process.env.EARSHOT_TEST_PID_DIR, String(process.pid)),
      `${process.env.EARSHOT_SCENARIO}#${process.env.EARSHOT_REPEAT_INDEX}\n`,
    );
  }
  console.log(
    `launch: refbot --port ${argv[at + 1]} ${extraArgs.join(' ')} (${process.env.EARSHOT_SCENARIO}#${process.env.EARSHOT_REPEAT_INDEX})`,
  );
  // Pipecat passes a manifest entry's runner_body as --runner-body FILE; say what it held.
  const body = argv.indexOf('--runner-body');
  if (body >= 0) console.log(`launch: runner body ${readFileSync(argv[body + 1], 'utf8').trim()}`);
  process.argv = [process.argv[0], MAIN, 'refbot', '--port', argv[at + 1], ...extraArgs];
  await import(pathToFileURL(MAIN).href);
}
