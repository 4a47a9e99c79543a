/**
 * What `earshot calibrate` plays: a fixed scenario and the reference bot's
 * brain for it, kept here as text (they are earshot's own calibration
 * procedure, not user data) and written to the calibration's work folder.
 *
 * One run measures three things against the bot's truth log:
 * - turn 1, a spoken request for a story: voice-to-voice latency (end of the
 *   user's speech → the story's first audible sample);
 * - turn 2, a question spoken `BARGE_IN_AFTER_MS` into the story: interruption
 *   latency (start of the user's speech → end of the story's audio), and the
 *   voice-to-voice latency of the answer.
 * The greeting is one word so a run stays short (~10 s plus the configured
 * response delay, twice).
 *
 * With a sentence gap (`earshot calibrate --sentence-gap-ms 400`, the bot
 * speaking as a Pipecat TTS does), the question starts in the pause after the
 * story's first sentence instead, and the bot stops there: the barge-in that
 * only a speaking window bridged across pauses counts as one.
 */

export const CALIBRATION_SCENARIO_FILE = 'calibration.yaml';
export const CALIBRATION_BRAIN_FILE = 'calibration-brain.yaml';
/** How far into the story's audio (from its first audible sample) the user starts talking over it. */
export const BARGE_IN_AFTER_MS = 1000;

/**
 * The send of the question, from the story's first audible sample, that puts
 * the caller's first voiced sample about 150 ms into the pause after the
 * first sentence: Flite (slt, 16 kHz) makes that sentence audible for 3138 ms
 * and the question's first audible sample sits 223 ms into its audio, plus up
 * to one 20 ms frame before the microphone sends it. The bot takes ~150 ms to
 * hear the barge-in and stop: inside the pause for any gap of 300 ms or more
 * (the pause is the gap plus Flite's own 377 ms of edge silence).
 */
export const PAUSE_BARGE_IN_AFTER_MS = 3050;
/** The shortest sentence gap whose pause holds both the caller's onset and the bot's stop. */
export const MIN_CALIBRATION_GAP_MS = 300;

/** The scenario, with the barge-in `afterMs` into the story (mid-sentence, or in the first pause). */
export function calibrationScenario(afterMs: number = BARGE_IN_AFTER_MS): string {
  return CALIBRATION_SCENARIO.replace(`delay_ms: ${BARGE_IN_AFTER_MS}`, `delay_ms: ${afterMs}`);
}

export const CALIBRATION_SCENARIO =
  '# earshot calibrate: one voice-to-voice turn, then a barge-in that also gets an answer.\n' +
  `name: calibration

user:
  modality: audio
  speech:
    service: flite
    voice: slt
    sample_rate: 16000

judge:
  modality: audio
  transcription:
    service: sphinx

scenarios:
  - name: voice_to_voice_and_barge_in
    turns:
      # Let the one-word greeting play out: speaking over it would be a barge-in.
      - expect:
          - event: bot_audio_stopped
            within_ms: 20000

      - user: "Please tell me a story."
        expect:
          - event: bot_audio_started
            within_ms: 20000

      - user: "What is the capital of Germany?"
        send_after:
          event: bot_audio_started
          delay_ms: ${BARGE_IN_AFTER_MS}
        expect:
          # The story yields to the user...
          - event: bot_audio_stopped
            within_ms: 10000
          # ...and the answer follows.
          - event: bot_audio_started
            within_ms: 20000
`;

export const CALIBRATION_BRAIN = `# The reference bot's brain for earshot calibrate.
greeting: Hello.
fallback: Sorry, I did not catch that.
story:
  when: [story]
  reply: >-
    Once upon a time there was a small town by a wide river. Every morning the
    baker opened his shop before sunrise, and the smell of fresh bread filled the
    streets. The children walked to school along the water, and the boats went
    up and down the river all day long. In the evening the whole town came out to
    watch the sun go down behind the hills.
rules:
  - name: capital-germany
    when: { all: [capital, germany] }
    reply: The capital of Germany is Berlin.
`;
