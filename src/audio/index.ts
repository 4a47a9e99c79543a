export * from './errors.js';
export * from './pcm.js';
export * from './level.js';
export * from './resample.js';
export * from './wav.js';
export * from './dtmf.js';
export * from './frame-log.js';
// The timer drivers live in core; the reference bot still imports them from here.
export { ManualTimerDriver, PreciseTimerDriver, type TimerDriver } from '../core/timers.js';
export * from './utterance.js';
export * from './mic-types.js';
export * from './mic-stream.js';
export * from './pacer.js';
export * from './timeline.js';
export * from './silero.js';
export * from './vad.js';
export * from './onset.js';
export * from './recorder.js';
