/**
 * The bot's side of a session as events: RTVI messages translated into
 * earshot's events (Pipecat's names and rules), and the queue a driver and
 * its matcher consume them from, with every event kept in arrival order.
 */
export { EventQueue, DeadlineError, QueueClosedError, type EventView, type QueueEndKind } from './event-queue.js';
export { EventTranslator, type BotResponse, type Translation } from './translator.js';
