import { diagnosticAt, type Diagnostic } from './diagnostics.js';
import type { CodeHook, Runnable } from './types.js';

/**
 * Pipecat's `factory:` is a dotted path to a Python callable (its release
 * evals judge with `evals.judges.typesafe_classifier`). The loader keeps it as
 * data; before a run starts, each one the run would need is refused here in one
 * located line that names the flag replacing the block.
 */

/** The flag that replaces each block's service, for the message. */
const REPLACED_BY: Record<string, string> = {
  'judge.eval': 'judge with --judge openai:MODEL[@URL] or --judge ollama:MODEL',
  'judge.eval.explainer':
    'replace the judge with --judge openai:MODEL[@URL] or --judge ollama:MODEL, or set explainer: false',
  'user.speech': 'speak the user turns with --tts NAME',
  'judge.transcription': "transcribe the bot's speech with --stt NAME",
  'judge.transcription[1]': 'check the transcription with --stt-check NAME',
  simulator:
    'play the caller with --simulator openai:MODEL[@URL] or --simulator ollama:MODEL, or write a simulator: ' +
    'block naming an LLM service (ollama or openai)',
};

/**
 * One error per Python `factory:` the scenario would run, located where it
 * was written. `replaced` lists the blocks a flag replaces for this run
 * (`judge.eval` for `--judge`, which covers its explainer too; `user.speech`
 * for `--tts`; `judge.transcription` for `--stt`): their factories are not needed.
 */
export function unrunnableFactories(
  scenario: Pick<Runnable, 'code_hooks'>,
  replaced: readonly string[] = [],
): Diagnostic[] {
  const gone = (hook: CodeHook): boolean => replaced.some((b) => hook.block === b || hook.block.startsWith(`${b}.`));
  return scenario.code_hooks
    .filter((h) => h.runtime === 'python' && !gone(h))
    .map((h) => {
      const fix = REPLACED_BY[h.block] ?? 'replace the block with a service: earshot provides';
      const message =
        `${h.factory} is a Python callable (Pipecat's factory:), ` + `which earshot cannot run in Node; ${fix}`;
      return diagnosticAt('error', h.location, `${h.block}.factory`, message);
    });
}
