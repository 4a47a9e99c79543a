export * from './types.js';
export { activeLevelDbfs, meanPower, powerToDbfs } from './level.js';
export {
  applyConditions,
  buildChain,
  CONDITIONS,
  DEFAULT_CONDITION_SEED,
  deriveSeed,
  flushChain,
  hasConditions,
  mergeConditions,
  processChunk,
  type ChainOptions,
} from './chain.js';
export { mulawDecode, mulawEncode, TELEPHONE_BAND_HZ, TELEPHONE_RATE_HZ } from './telephony.js';
export { PACKET_MS } from './loss.js';
export { timeStretch } from './rate.js';
export { pinkNoise, whiteNoise } from './noise.js';
