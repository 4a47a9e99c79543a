import { formatLocation, type Runnable, type Scenario } from '../scenario/index.js';
import type { SessionSettings } from './config.js';

/**
 * What a session refuses before it connects, each in one line a reader can
 * act on (a precondition earshot cannot meet is an error, never skipped).
 */

/**
 * A scenario whose JavaScript `factory:` hooks need `--allow-code`, unless a
 * flag replaces the block (`--judge` the judge's). Python hooks are refused
 * where they are used (the judge, the speech services), located.
 */
export function codeRefusal(
  scenario: Runnable,
  settings: Pick<SessionSettings, 'allowCode'> & { judge: Pick<SessionSettings['judge'], 'override'> },
): string | null {
  if (settings.allowCode) return null;
  const needed = scenario.code_hooks.filter(
    (h) => h.runtime === 'node' && !(settings.judge.override !== null && h.block.startsWith('judge.eval')),
  );
  if (needed.length === 0) return null;
  return (
    `scenario names code hooks (${needed.map((h) => `${h.block}.factory`).join(', ')}); rerun with --allow-code ` +
    'to load them'
  );
}

/**
 * Events a scenario may name that earshot cannot observe on any bot. Pipecat's
 * `image` (a bot's generated image, which its release evals wait for) is
 * accepted by its parser, but the RTVI message a bot sends it as is in no
 * published Pipecat source, so no earshot session could ever see one: the
 * expectation could only time out.
 */
const UNOBSERVABLE: Readonly<Record<string, string>> = {
  image:
    "the RTVI message a Pipecat bot reports a generated image with is not in Pipecat's published source, so " +
    'earshot cannot observe it',
};

export function unobservableExpectation(scenario: Runnable): string | null {
  if (scenario.kind !== 'script') return null;
  for (const [t, turn] of scenario.turns.entries()) {
    const anchor = turn.send_after?.event;
    if (anchor !== undefined && Object.hasOwn(UNOBSERVABLE, anchor))
      return located(scenario, `turns[${t}].send_after.event`, anchor);
    for (const [e, exp] of turn.expect.entries()) {
      if (Object.hasOwn(UNOBSERVABLE, exp.event)) return located(scenario, `turns[${t}].expect[${e}].event`, exp.event);
    }
  }
  return null;
}

function located(scenario: Scenario, path: string, event: string): string {
  const loc = scenario.locations[path];
  return `${loc ? `${formatLocation(loc)}: ` : `${scenario.file}: `}${path}: event '${event}': ${UNOBSERVABLE[event]}`;
}
