export { readBotSummary, type NemoVerdictSettings, type SummaryPull } from './types.js';
