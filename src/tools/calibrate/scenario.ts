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
 */

export const CALIBRATION_SCENARIO_FILE = 'calibration.yaml';
export const CALIBRATION_BRAIN_FILE = 'calibration-brain.yaml';
/** How far into the story's audio (from its first audible sample) the user starts talking over it. */
export const BARGE_IN_AFTER_MS = 1000;

export const CALIBRATION_SCENARIO = `# earshot calibrate: one voice-to-voice turn, then a barge-in that also gets an answer.
name: calibration

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
