import type { CliCommand } from '../command.js';

/** A command and how to load it: `earshot <name>` imports only its own module (bot start-up stays fast). */
export interface CommandEntry {
  name: string;
  load: () => Promise<CliCommand>;
}

// One line per command.
export const COMMANDS: CommandEntry[] = [
  { name: 'validate', load: async () => (await import('./validate.js')).validateCommand },
  { name: 'run', load: async () => (await import('./run.js')).runCommand },
  { name: 'suite', load: async () => (await import('./suite.js')).suiteCommand },
  { name: 'merge', load: async () => (await import('./merge.js')).mergeCommand },
  { name: 'refbot', load: async () => (await import('./refbot.js')).refbotCommand },
  { name: 'models', load: async () => (await import('./models.js')).modelsCommand },
  { name: 'demo', load: async () => (await import('./demo.js')).demoCommand },
  { name: 'bench', load: async () => (await import('./bench.js')).benchCommand },
  { name: 'calibrate', load: async () => (await import('./calibrate.js')).calibrateCommand },
  { name: 'compare', load: async () => (await import('./compare.js')).compareCommand },
  { name: 'judge', load: async () => (await import('./judge.js')).judgeCommand },
];
