/**
 * `npm run models:fixtures -- --out DIR [--full] [--models a,b] [--seed N]`:
 * writes generated fixture models into a model store folder (nothing is
 * downloaded). Point EARSHOT_MODELS_DIR at DIR to run earshot on them.
 */
import { Command } from 'commander';
import { formatBytes } from '../src/speech/index.js';
import { writeFixtureModels } from '../src/speech/fixture-models/write.js';

const program = new Command('models:fixtures')
  .description('Write generated fixture models (tiny: known outputs; --full: real dimensions) into a model store')
  .requiredOption('--out <dir>', 'model store folder to write into')
  .option('--full', 'full-size architectures with seeded random weights (compute cost, not accuracy)')
  .option('--models <names>', 'comma-separated registry names (default: all)')
  .option('--seed <n>', 'seed of the full-size weights', '1')
  .action(async (opts: { out: string; full?: boolean; models?: string; seed: string }) => {
    const seed = Number(opts.seed);
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed: expected a whole number, got '${opts.seed}'`);
    const started = performance.now();
    const written = await writeFixtureModels(opts.out, {
      variant: opts.full ? 'full' : 'tiny',
      seed,
      ...(opts.models ? { models: opts.models.split(',').map((m) => m.trim()) } : {}),
    });
    for (const w of written) console.log(`${w.model.padEnd(16)} ${formatBytes(w.bytes).padStart(10)}  ${w.dir}`);
    console.log(`${written.length} fixture models in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    console.log(`use them: EARSHOT_MODELS_DIR=${opts.out} earshot run ... --stt whisper:tiny.en`);
  });

program.parseAsync().catch((err: unknown) => {
  console.error(`models:fixtures: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
