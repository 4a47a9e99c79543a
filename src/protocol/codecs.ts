/**
 * The codec table: a new wire format is a file and a line here.
 */
import { CODEC_NAMES, type CodecFactory, type CodecName, isCodecName } from './codec.js';
import { UnknownCodecError } from './errors.js';
import { evalClientCodec, evalServerCodec } from './eval-codec.js';
import { protobufClientCodec, protobufServerCodec } from './protobuf-codec.js';

/** The wire a session speaks unless told otherwise: Pipecat's eval transport. */
export const DEFAULT_CODEC: CodecName = 'pipecat-eval';

export const CODECS: Readonly<Record<CodecName, CodecFactory>> = {
  'pipecat-eval': {
    description:
      "Pipecat's eval transport (bot.py -t eval): RTVI JSON text frames, audio as raw-audio / eval-bot-audio",
    capabilities: new Set([
      'context',
      'report_level',
      'vad_events',
      'markers',
      'images',
      'cancel',
      'url_flags',
      'bot_audio',
    ]),
    client: evalClientCodec,
    server: evalServerCodec,
  },
  protobuf: {
    description:
      "Pipecat's WebSocket transport with ProtobufFrameSerializer: binary pipecat.Frame, audio as AudioRawFrame",
    // The eval-* messages reach a production RTVIProcessor as plain client messages and are dropped.
    capabilities: new Set(['bot_audio', 'bare_audio']),
    client: protobufClientCodec,
    server: protobufServerCodec,
  },
};

/** The factory for `name`; an `UnknownCodecError` listing the valid names otherwise. */
export function getCodec(name: string): CodecFactory {
  if (!isCodecName(name)) throw new UnknownCodecError(name, CODEC_NAMES);
  return CODECS[name];
}
