import type { CliCommand } from '../command.js';
import { validateCommand } from './validate.js';
import { runCommand } from './run.js';

// One line per command.
export const COMMANDS: CliCommand[] = [
  validateCommand,
  runCommand,
];
