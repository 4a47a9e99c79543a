#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { COMMANDS } from './commands/index.js';
import { EarshotError, errorMessage } from '../core/errors.js';

const require = createRequire(import.meta.url);
const pkg = require('../../package.json') as { version: string };

/**
 * Registers the command named on the command line, or every command when none
 * is (help, version, a typo): a bot spawned as `earshot refbot` should not pay
 * for loading the whole harness.
 */
export async function buildProgram(argv: readonly string[] = process.argv): Promise<Command> {
  const program = new Command('earshot')
    .description('Real-time evaluation harness for voice agents')
    .version(pkg.version)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const named = COMMANDS.filter((c) => c.name === argv[2]);
  for (const entry of named.length ? named : COMMANDS) (await entry.load()).register(program);
  return program;
}

/** Turns anything thrown into one line and an exit code; stacks only with EARSHOT_DEBUG=1. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
      return 0;
    }
    return 2;
  }
  if (err instanceof EarshotError) {
    process.stderr.write(`earshot: ${err.message}\n`);
    return err.exitCode;
  }
  process.stderr.write(`earshot: internal error: ${errorMessage(err)}\n`);
  if (process.env.EARSHOT_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  else process.stderr.write('(set EARSHOT_DEBUG=1 for a stack trace)\n');
  return 1;
}

async function main(): Promise<void> {
  try {
    await (await buildProgram()).parseAsync(process.argv);
  } catch (err) {
    process.exitCode = exitCodeFor(err);
  }
}

await main();
