import type { CliCommand } from '../command.js';
import { validateCommand } from './validate.js';
import { runCommand } from './run.js';
import { suiteCommand } from './suite.js';
import { mergeCommand } from './merge.js';
import { refbotCommand } from './refbot.js';
import { modelsCommand } from './models.js';

// One line per command.
export const COMMANDS: CliCommand[] = [
  validateCommand,
  runCommand,
  suiteCommand,
  mergeCommand,
  refbotCommand,
  modelsCommand,
];
