/**
 * The pacer thread: microphone pacing and frame sending on a worker thread of
 * their own, with the sockets of the audio sessions, so the main thread's work
 * cannot delay a frame.
 */
export { ThreadPacer, type ThreadPacerOptions, type ThreadPacerStats } from './thread-pacer.js';
export { RemoteStream, type RemoteStreamOptions, type RemoteUtterance, type SentFrame } from './remote-stream.js';
export { RemoteSocket } from './remote-socket.js';
