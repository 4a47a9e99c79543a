/**
 * `earshot calibrate`: how accurately earshot measures latency on this
 * machine, against the reference bot's own ground truth, per wire, metric and
 * response delay.
 */
export {
  runCalibration,
  CalibrationSetupError,
  CALIBRATION_WIRES,
  DEFAULT_CALIBRATION_DELAYS_MS,
  DEFAULT_CALIBRATION_REPEAT,
  type CalibrateOptions,
  type CalibrationWire,
  type CalibrationOutcome,
  type CalibrationConfigOutcome,
  type CalibrationSampleRecord,
} from './calibrate.js';
export {
  calibrationJson,
  describeMachine,
  errorSources,
  parseDelayList,
  parseWireList,
  renderCalibration,
  type ErrorSource,
  type MachineInfo,
} from './report.js';
export { CALIBRATION_METRICS, type CalibrationMetric, type MatchedSample } from './match.js';
export { TruthLogError } from './truth.js';
