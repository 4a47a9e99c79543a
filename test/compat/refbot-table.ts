import type { JudgeRule } from '../support/llm-server.js';

/**
 * Which of Pipecat's newest scripted release scenarios can pass against
 * earshot's reference bot (`earshot refbot`, its default brain), and why the
 * others cannot: they test a specific Pipecat example bot's own functions and
 * flows, or a provider the refbot does not stand in for. README.md's
 * "Pipecat's release evals against the reference bot" table says the same;
 * refbot-corpus.test.ts checks both against the corpus and runs every `passes`.
 */
export const PASSES = 'passes';

export const REFBOT_TABLE: Readonly<Record<string, string>> = {
  'acme_handoff/acme_handoff':
    'a Pipecat Flows bot handing off between its own agents (transfer_to_agent, end_conversation)',
  'acme_handoff_voices/acme_handoff_voices': 'the same hand-off, each agent with its own TTS voice',
  'async_tool/delivery': "an async tool's result delivered after the bot moved on (deferred function results)",
  'async_tool/deferred_delivery_audio': "an async tool's result delivered while the bot tells a story",
  'async_tool_cancellation/single': 'a long-running tool the user cancels (write_report, cancel_write_report)',
  'async_tool_cancellation/concurrent': 'two long-running tools, one cancelled',
  'capital_question/capital_question': PASSES,
  'capital_question_recording/capital_question_recording':
    'plays assets/capital_question.wav, a binary asset this copy of the corpus lacks',
  'classifier_turn_completion/classifier_turn_completion': PASSES,
  'describe_image/describe_image': "a vision LLM describing the user's camera image (fetch_user_image)",
  'dtmf_menu/dtmf_menu': PASSES,
  'empty_user_turn/empty_user_turn': "the bot's recovery when its STT transcribes nothing (empty user turn)",
  'filter_incomplete_turns/filter_incomplete_turns': PASSES,
  'filter_incomplete_turns_function_calling/filter_incomplete_turns_function_calling':
    'a question held open across a pause and answered whole; the refbot brain answers each utterance on its own',
  'filter_incomplete_turns_user_idle/filter_incomplete_turns_user_idle':
    'the bot prompting a user who went quiet (user idle)',
  'food_ordering_pizza/food_ordering_pizza': "a Pipecat Flows ordering bot's own functions and states",
  'food_ordering_sushi/food_ordering_sushi': "a Pipecat Flows ordering bot's own functions and states",
  'function_call_timeout/function_call_timeout': 'a tool that times out (get_stock_price)',
  'generate_image/generate_image':
    "an image service (fal, Google, OpenAI) and the image event, whose RTVI message is not in Pipecat's source (earshot refuses it)",
  'hello_world/hello_world':
    "the example bot's greeting asking for a favorite color (the refbot greets with its keypad menu)",
  'insurance_quote/insurance_quote': "a Pipecat Flows quote bot's own functions and states",
  'interruption/text': PASSES,
  'interruption/audio': PASSES,
  'keenable/web_search': "Keenable's web search service",
  'keenable/fetch_page': "Keenable's page fetch service",
  'language_switch/text': 'an LLM that switches to Spanish on request',
  'language_switch/audio': 'Spanish speech: a multilingual TTS, and Whisper to transcribe it',
  'llm_switching/llm_switching': 'switching the LLM between OpenAI, Anthropic and Google mid-call',
  'mcp_memory/mcp_memory': "an MCP memory server's tools",
  'multi_turn/multi_turn': PASSES,
  'multi_worker_handoff/reservation': "a multi-worker bot's transfers between its workers",
  'multi_worker_handoff/back_and_forth': "a multi-worker bot's transfers between its workers",
  'patient_intake/patient_intake': "a Pipecat Flows intake bot's own functions and states",
  'restaurant_reservation/available': "a Pipecat Flows reservation bot's own functions and states",
  'restaurant_reservation/no_availability': "a Pipecat Flows reservation bot's own functions and states",
  tts_settings_change_audio: 'a TTS whose voice settings the bot changes mid-call',
  'vision_describe/vision_describe': 'a vision LLM describing an image given in the runner body',
  'voicemail_detection/voicemail': 'an outbound-call bot with a voicemail classifier that leaves a message',
  'voicemail_detection/voicemail_business': 'an outbound-call bot with a voicemail classifier that leaves a message',
  'voicemail_detection/voicemail_personal_start':
    'an outbound-call bot with a voicemail classifier that leaves a message',
  'voicemail_detection/voicemail_carrier': 'an outbound-call bot with a voicemail classifier that leaves a message',
  'voicemail_detection/conversation': 'an outbound-call bot introducing itself once a person answers',
  'voicemail_detection/conversation_hello': 'an outbound-call bot introducing itself once a person answers',
  'voicemail_detection/conversation_name': 'an outbound-call bot introducing itself once a person answers',
  'voicemail_detection/conversation_two_turns': 'an outbound-call bot introducing itself once a person answers',
  'weather/weather': PASSES,
  'weather_and_restaurant/weather_and_restaurant': PASSES,
  'weather_function_call/weather_function_call': PASSES,
  'weather_function_call_audio/weather_function_call_audio': PASSES,
  'weather_no_function_call/weather_no_function_call': PASSES,
};

/**
 * The stand-in judge for that run: the corpus's criteria, each decided by what
 * the reply must hold (case-insensitive, so PocketSphinx's lowercase
 * transcriptions read the same as typed text). Anything else is a no.
 */
const has = (reply: string, ...patterns: RegExp[]): boolean => patterns.every((p) => p.test(reply));
export const CORPUS_JUDGE: JudgeRule[] = [
  {
    when: ({ criterion, reply }) =>
      criterion.includes('opens the conversation') && has(reply, /\b(hello|help|answer)\b/i),
    verdict: 'yes',
    reason: 'it greets',
  },
  {
    when: ({ criterion, reply }) => criterion.includes('capital of Germany is Berlin') && has(reply, /berlin/i),
    verdict: 'yes',
    reason: 'names Berlin',
  },
  {
    when: ({ criterion, reply }) =>
      criterion.includes('capital of Japan is Tokyo') && has(reply, /tokyo/i) && !/paris/i.test(reply),
    verdict: 'yes',
    reason: 'names Tokyo, no Paris story',
  },
  {
    when: ({ criterion, reply }) => criterion.includes('acknowledges the user') && has(reply, /alex|italy/i),
    verdict: 'yes',
    reason: 'acknowledges Alex',
  },
  {
    when: ({ criterion, reply }) => criterion.includes('recalls that the user') && has(reply, /alex/i, /italy/i),
    verdict: 'yes',
    reason: 'recalls Alex and Italy',
  },
  {
    when: ({ criterion, reply }) =>
      criterion.includes('recommends a restaurant') &&
      has(reply, /san francisco/i, /degrees/i, /golden dragon|recommend/i),
    verdict: 'yes',
    reason: 'weather and a restaurant',
  },
  {
    when: ({ criterion, reply }) =>
      criterion.includes('weather in San Francisco') &&
      !criterion.includes('restaurant') &&
      has(reply, /san francisco/i, /degrees/i),
    verdict: 'yes',
    reason: 'weather with degrees',
  },
  {
    when: ({ criterion, reply }) =>
      criterion.includes('keypad menu') && has(reply, /press (1|one)\b/i, /press (2|two)\b/i),
    verdict: 'yes',
    reason: 'the menu',
  },
  {
    when: ({ criterion, reply }) => criterion.includes('business hours') && has(reply, /9 am to 5 pm/i),
    verdict: 'yes',
    reason: 'the hours',
  },
  {
    when: ({ criterion, reply }) => criterion.includes('office location') && has(reply, /123 main street/i),
    verdict: 'yes',
    reason: 'the address',
  },
  {
    when: ({ criterion, reply }) =>
      criterion.includes('callback number followed by the pound') && has(reply, /number/i, /pound/i),
    verdict: 'yes',
    reason: 'asks for the number',
  },
  {
    when: ({ criterion, reply }) =>
      criterion.includes('confirms the callback number') && has(reply, /5551234567/, /call you back/i),
    verdict: 'yes',
    reason: 'confirms the number',
  },
  {
    when: ({ criterion, reply }) => criterion.includes('visiting Japan') && has(reply, /japan/i),
    verdict: 'yes',
    reason: 'talks about Japan',
  },
];
