import type { Command } from 'commander';

/** One CLI command: a file under commands/ and one line in commands/index.ts. */
export interface CliCommand {
  name: string;
  register(program: Command): void;
}
