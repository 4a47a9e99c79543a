import type { Normalizer } from './normalize.js';
import type { JudgeConfig, Turn, UserConfig } from './types.js';

/**
 * earshot extension: a turn's mid-utterance pause (`pause_ms`, `pause_after`)
 * and its `takeover:` assertion. The pause splits the spoken `user:` text at
 * a word boundary — after the words `pause_after` names, else after the
 * middle word — so each half is synthesized on its own and the silence
 * between them is exactly `pause_ms`.
 */
export function normalizeProbe(
  raw: Record<string, unknown>,
  turn: Turn,
  p: string,
  n: Normalizer,
  user: UserConfig,
  judge: JudgeConfig,
): void {
  const at = (k: string): string => `${p}.${k}`;
  if (typeof raw.pause_ms === 'number') {
    if (user.modality !== 'audio')
      n.error(at('pause_ms'), "a pause is silence in the caller's audio, which needs 'user.modality: audio'");
    else if (turn.user === undefined || turn.audio !== undefined)
      n.error(at('pause_ms'), "a pause splits the synthesized 'user:' text: it needs 'user:' and no 'audio:'");
    else {
      const after = typeof raw.pause_after === 'string' ? raw.pause_after.trim() : middleWords(turn.user);
      if (after === null)
        n.error(at('pause_ms'), "the 'user:' text has one word: there is no middle to pause in (write two or more)");
      else if (!startsWithWords(turn.user, after)) {
        n.error(
          at('pause_after'),
          `${JSON.stringify(after)} is not how 'user:' begins (${JSON.stringify(turn.user)}): ` +
            `the pause falls after these opening words`,
        );
      } else if (turn.user.trim().length === after.length)
        n.error(at('pause_after'), 'the pause would fall at the end of the text: leave some words after it');
      else turn.pause = { ms: raw.pause_ms, after };
    }
  } else if (raw.pause_after !== undefined)
    n.error(at('pause_after'), "'pause_after:' places a pause: it needs 'pause_ms:'");
  if (typeof raw.takeover === 'boolean') {
    if (raw.pause_ms === undefined)
      n.error(at('takeover'), "'takeover:' is about the pause in this turn: it needs 'pause_ms:'");
    else if (judge.modality !== 'audio')
      n.error(at('takeover'), "'takeover:' is measured from the bot's audio, which needs 'judge.modality: audio'");
    else turn.takeover = raw.takeover;
  }
}

/** A turn's `backchannel:` and its `yielded:` assertion. */
export function normalizeBackchannel(
  raw: Record<string, unknown>,
  turn: Turn,
  p: string,
  n: Normalizer,
  user: UserConfig,
  judge: JudgeConfig,
): void {
  const block =
    raw.backchannel !== null && typeof raw.backchannel === 'object'
      ? (raw.backchannel as Record<string, unknown>)
      : undefined;
  if (block) {
    if (user.modality !== 'audio' || judge.modality !== 'audio') {
      n.error(
        `${p}.backchannel`,
        "a backchannel is played over the bot's audio: it needs 'user.modality: audio' and 'judge.modality: audio'",
      );
    } else if (turn.user === undefined && turn.audio === undefined) {
      n.error(
        `${p}.backchannel`,
        "a backchannel is played while the bot answers this turn: the turn needs 'user:' to answer",
      );
    } else
      turn.backchannel = {
        text: typeof block.text === 'string' ? block.text : 'right',
        after_ms: typeof block.after_ms === 'number' ? block.after_ms : 1000,
      };
  }
  if (typeof raw.yielded === 'boolean') {
    if (!block) n.error(`${p}.yielded`, "'yielded:' is about the backchannel in this turn: it needs 'backchannel:'");
    else if (turn.backchannel) turn.yielded = raw.yielded;
  }
}

/** The opening words up to the middle word boundary, or null for a single word. */
function middleWords(text: string): string | null {
  const words = text.trim().split(/\s+/);
  if (words.length < 2) return null;
  return words.slice(0, Math.ceil(words.length / 2)).join(' ');
}

function startsWithWords(text: string, head: string): boolean {
  const t = text.trim();
  return t.startsWith(head) && (t.length === head.length || /\s/.test(t[head.length]));
}

/** The two halves the pause splits `user:` into. */
export function splitAtPause(text: string, after: string): [string, string] {
  const t = text.trim();
  return [t.slice(0, after.length).trim(), t.slice(after.length).trim()];
}
