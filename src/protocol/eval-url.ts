/**
 * The per-connection flags Pipecat's eval transport reads from the connect
 * URL's query string. The harness sets them; the reference bot reads them.
 */
import { InvalidUrlError } from './errors.js';

export interface EvalConnectFlags {
  /** Text judge modality: the bot must not speak, not even its greeting. */
  skipTts?: boolean;
  /** Older eval transports: turn on the virtual microphone for uploaded `raw-audio`. */
  userAudio?: boolean;
  /** Forward the bot's synthesized audio as `eval-bot-audio` messages. */
  captureBotAudio?: boolean;
  /** Bot-side recording path (older eval transports). */
  record?: string;
  /** Fire the bot's on_client_disconnected handler when the connection ends. */
  triggerDisconnect?: boolean;
}

const BOOLEAN_FLAGS = [
  ['skipTts', 'skip_tts'],
  ['userAudio', 'user_audio'],
  ['captureBotAudio', 'capture_bot_audio'],
  ['triggerDisconnect', 'trigger_disconnect'],
] as const;

/**
 * `base` with the flags that are set added to its query (existing parameters
 * are kept; a flag given here replaces one of the same name). Flags that are
 * false or absent are not written, as Pipecat's harness does.
 */
export function buildEvalUrl(base: string, flags: EvalConnectFlags): string {
  const url = parseBotUrl(base);
  for (const [key, wire] of BOOLEAN_FLAGS) if (flags[key]) url.searchParams.set(wire, 'true');
  if (flags.record) url.searchParams.set('record', flags.record);
  return url.toString();
}

/** A ws:// or wss:// URL, or an `InvalidUrlError` saying why not. */
export function parseBotUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidUrlError(text, 'not a URL (expected ws://HOST:PORT[/PATH])');
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new InvalidUrlError(text, `scheme ${url.protocol} is not ws: or wss:`);
  }
  if (url.hash) throw new InvalidUrlError(text, 'a WebSocket URL cannot have a #fragment');
  return url;
}

// Pipecat's eval transport accepts 1/true/yes (any case) and reads the first value.
const TRUE = new Set(['1', 'true', 'yes']);

/** The flags in a request target (`/path?skip_tts=true`) or a full URL. Never throws. */
export function parseEvalFlags(target: string): EvalConnectFlags {
  const q = target.indexOf('?');
  const params = new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
  const flags: EvalConnectFlags = {};
  for (const [key, wire] of BOOLEAN_FLAGS) {
    const value = params.get(wire);
    if (value !== null && TRUE.has(value.trim().toLowerCase())) flags[key] = true;
  }
  const record = params.get('record');
  if (record) flags.record = record;
  return flags;
}
