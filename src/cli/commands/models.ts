import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import {
  findModel,
  formatBytes,
  formatDtype,
  hubFromEnv,
  MODELS_DIR_ENV,
  modelNames,
  ModelStore,
  parseDtype,
  pullModel,
  streamProgress,
  type ModelStatus,
} from '../../speech/index.js';
import type { CliCommand } from '../command.js';

interface PullFlags {
  dtype?: string;
  revision?: string;
}

/** `earshot models list` and `earshot models pull <name...>`: the model store for whisper, moonshine and kokoro. */
export const modelsCommand: CliCommand = {
  name: 'models',
  register(program: Command): void {
    const models = program
      .command('models')
      .description(`Speech models in the store (${MODELS_DIR_ENV} moves it; default ./models of the project)`);

    models
      .command('list')
      .description('Show every known model, whether its files are present and their size on disk')
      .option('--json', 'print JSON')
      .action((flags: { json?: boolean }) => {
        const store = ModelStore.fromEnv();
        const statuses = store.list();
        process.stdout.write(flags.json ? jsonList(store, statuses) : humanList(store, statuses));
      });

    models
      .command('pull')
      .description('Download models from the Hugging Face hub (HF_ENDPOINT, HF_TOKEN), checking size and sha256')
      .argument('<names...>', `model names: ${modelNames().join(', ')}`)
      .option(
        '--dtype <dtype>',
        "weight precision: fp32, fp16, q8, int8, uint8, q4, q4f16, or graph=dtype,... (default: each model's own)",
      )
      .option('--revision <rev>', 'hub branch, tag or commit (default main)')
      .action(async (names: string[], flags: PullFlags) => {
        const unknown = names.filter((n) => !findModel(n));
        if (unknown.length)
          throw new UsageError(
            `unknown model ${unknown.map((n) => `'${n}'`).join(', ')} (known: ${modelNames().join(', ')})`,
          );
        const store = ModelStore.fromEnv();
        const progress = streamProgress(process.stderr);
        for (const name of names) {
          const model = findModel(name)!;
          const dtype = flags.dtype ? parseDtype(model, flags.dtype) : undefined;
          process.stderr.write(
            `${name}: ${model.repo} (${formatDtype(dtype ?? model.defaultDtype)}) -> ${store.modelDir(model)}\n`,
          );
          const result = await pullModel(name, { store, dtype, revision: flags.revision, hub: hubFromEnv(), progress });
          const bytes = result.files.reduce((sum, f) => sum + f.bytes, 0);
          const fetched = result.files.filter((f) => f.outcome === 'downloaded').length;
          process.stdout.write(
            `${name}: ready, ${result.files.length} files, ${formatBytes(bytes)} (${fetched} downloaded)\n`,
          );
        }
      });
  },
};

function statusText(s: ModelStatus): string {
  if (s.present) return s.fixture ? `fixture (${s.fixture.variant})` : 'present';
  const have = s.files.filter((f) => f.present).length;
  return have === 0 ? 'missing' : `partial ${have}/${s.files.length}`;
}

function humanList(store: ModelStore, statuses: ModelStatus[]): string {
  const rows = statuses.map((s) => [s.model.name, s.model.kind, statusText(s), formatBytes(s.sizeBytes), s.model.repo]);
  const header = ['NAME', 'KIND', 'STATUS', 'SIZE', 'HUB REPOSITORY'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  const missing = statuses.filter((s) => !s.present).map((s) => s.model.name);
  const hint = missing.length ? `\nPull one with: earshot models pull ${missing[0]}\n` : '';
  return `Model store: ${store.dir}\n${[line(header), ...rows.map(line)].join('\n')}\n${hint}`;
}

function jsonList(store: ModelStore, statuses: ModelStatus[]): string {
  const out = statuses.map((s) => ({
    name: s.model.name,
    kind: s.model.kind,
    provider: s.model.provider,
    repo: s.model.repo,
    present: s.present,
    size_bytes: s.sizeBytes,
    dir: s.dir,
    files: s.files.map((f) => ({ path: f.path, present: f.present, size_bytes: f.sizeBytes })),
    ...(s.fixture ? { fixture: s.fixture } : {}),
  }));
  return `${JSON.stringify({ store: store.dir, models: out }, null, 2)}\n`;
}
