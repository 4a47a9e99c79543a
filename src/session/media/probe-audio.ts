import { concatPcm, silence } from '../../audio/index.js';
import { splitAtPause, type Turn } from '../../scenario/index.js';
import { loadTurnAudio, type TurnAudio } from './user-audio.js';

type LoadOptions = Parameters<typeof loadTurnAudio>[2];

/**
 * A turn's audio with its mid-utterance pause (earshot extension): the two
 * halves of `user:` synthesized apart and joined by `pause.ms` of silence, so
 * the caller stops mid-sentence for exactly that long. Without a pause, the
 * turn's audio as usual.
 */
export async function loadSpokenAudio(
  turn: Pick<Turn, 'user' | 'audio' | 'pause'>,
  turnIndex: number,
  options: LoadOptions,
): Promise<TurnAudio> {
  if (!turn.pause || turn.user === undefined) return loadTurnAudio(turn, turnIndex, options);
  const [head, tail] = splitAtPause(turn.user, turn.pause.after);
  const first = await loadTurnAudio({ user: head }, turnIndex, options);
  const second = await loadTurnAudio({ user: tail }, turnIndex, options);
  const samples = concatPcm([first.samples, silence(turn.pause.ms, first.sampleRate), second.samples]);
  return { samples, sampleRate: first.sampleRate, label: `${head} … ${tail}` };
}
