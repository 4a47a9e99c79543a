import type { CliCommand } from '../command.js';

// One line per command.
export const COMMANDS: CliCommand[] = [];
