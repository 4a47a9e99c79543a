/**
 * The LLM judge: decides `eval:` expectations by asking a model whether the
 * bot's most recent reply satisfies a criterion (yes / no / continue).
 */
export type {
  ChatMessage,
  Conversation,
  Exchange,
  FunctionCallRecord,
  Judge,
  JudgeClassifier,
  JudgedCall,
  JudgeQuestion,
  JudgeRequest,
  ReplyItem,
  ReplySegment,
  UserInput,
  Verdict,
  VerdictValue,
} from './types.js';
export { createJudge, EXPLAINER_FAILED, JUDGE_ASKS, type CreateJudgeOptions } from './judge.js';
export { ConversationLog, latestReply, latestReplyText } from './conversation.js';
export { JudgeConfigError, JudgeError, isJudgeError, type JudgeErrorCode } from './errors.js';
export { parseVerdict, readJsonObject, type ParsedVerdict } from './parse.js';
export {
  JUDGE_CALL_SYSTEM_PROMPT,
  JUDGE_FINAL_SYSTEM_PROMPT,
  JUDGE_SYSTEM_PROMPT,
  PROMPT_LINES,
  judgeMessages,
  renderTranscript,
  type JudgeAsk,
} from './prompt.js';
export {
  DEFAULT_OLLAMA_EXTRA,
  DEFAULT_OLLAMA_HOST,
  DEFAULT_OLLAMA_MODEL,
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  DEFAULT_REQUEST_FIELDS,
  JUDGE_SERVICES,
  ollamaHostUrl,
  resolveJudgeService,
  unknownJudgeFields,
  type JudgeBackend,
  type JudgeServiceConfig,
  type JudgeServiceFactory,
} from './services.js';
export { VerdictCache, defaultJudgeCacheDir, verdictCacheKey } from './cache.js';
export {
  retryPolicy,
  type ChatAnswer,
  type ChatCallContext,
  type ChatEndpoint,
  type ChatRequest,
  type ChatTool,
  type RetryPolicy,
  type ToolCall,
} from './chat-completions.js';
