/**
 * Speech: text to user audio (TTS), bot audio to text (STT), the model store
 * and the utterance cache. Providers sit in one table per kind.
 */
export type { SynthesisResult, SynthesizeOptions, TtsFactory, TtsFactoryContext, TtsProvider } from './tts/types.js';
export { TTS_PROVIDERS, createTts, defaultTtsProvider, parseTtsSpec } from './tts/table.js';
export type { CreateTtsOptions, TtsSpec } from './tts/table.js';
export { FLITE_DEFAULT_VOICE, FLITE_VOICES, FliteTts } from './tts/flite.js';
export { KOKORO_DEFAULT_VOICE, KOKORO_SAMPLE_RATE, KokoroTts, kokoroLoadPlan, kokoroVoices } from './tts/kokoro.js';
export type { KokoroLoadPlan, KokoroOptions } from './tts/kokoro.js';

export type {
  RecognizedWord,
  SttFactory,
  SttFactoryContext,
  SttProvider,
  TranscribeOptions,
  Transcription,
} from './stt/types.js';
export { DEFAULT_PADDING_SECS, STT_SAMPLE_RATE } from './stt/types.js';
export { STT_PROVIDERS, createStt, parseSttSpec } from './stt/table.js';
export type { CreateSttOptions, SttSpec } from './stt/table.js';
export { SPHINX_MODES, SphinxStt } from './stt/sphinx.js';
export type { SphinxMode } from './stt/sphinx.js';
export { WorkerPool } from './stt/pool.js';
export type { PoolOptions, PoolStats, PoolWorker } from './stt/pool.js';
export { resolveSphinx } from './stt/sphinx-config.js';
export type { SphinxConfig } from './stt/sphinx-config.js';
export { DEFAULT_STT_MODEL, TransformersStt, asrLoadPlan, resolveSttModel } from './stt/transformers.js';
export type { AsrLoadPlan, AsrOptions } from './stt/transformers.js';

export { CACHE_DIR_ENV, CachedTts, UtteranceCache, defaultTtsCacheDir } from './cache.js';
export type { CacheStats, UtteranceKey } from './cache.js';

export { MODELS, findModel, modelNames, requiredFiles } from './models/registry.js';
export type { Dtype, DtypeSpec, ModelKind, ModelProvider, ModelSpec } from './models/registry.js';
export {
  MODELS_DIR_ENV,
  ModelStore,
  defaultModelsDir,
  formatDtype,
  lookupModel,
  parseDtype,
  pullCommand,
} from './models/store.js';
export type { FileStatus, ModelStatus } from './models/store.js';
export { DEFAULT_HF_ENDPOINT, hubFromEnv, pullModel } from './models/pull.js';
export type { HubSettings, PullOptions, PullResult, PulledFile, Verification } from './models/pull.js';
export { formatBytes, silentProgress, streamProgress } from './models/progress.js';
export type { ProgressStream, PullProgress } from './models/progress.js';

export { cudaSupport } from './onnx.js';
export type { CudaSupport, OnnxDevice } from './onnx.js';
export {
  DependencyMissingError,
  ModelDownloadError,
  ModelMissingError,
  SpeechConfigError,
  SpeechProviderError,
  SpeechQueueFullError,
  UnknownProviderError,
} from './errors.js';
