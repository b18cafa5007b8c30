// A worker that misbehaves the way a parser can on a hostile document — it never answers, or it
// allocates without end — so the pool's deadline and heap limit are tested against a real
// worker thread. It speaks the pool's protocol; the document's kind picks the misbehaviour.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', ({ id, kind }) => {
  if (kind === 'pdf') for (;;);
  if (kind === 'docx') {
    const hoard = [];
    for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
  }
  if (kind === 'pptx') process.exit(3);
  parentPort.postMessage({ id, result: { kind, text: 'ok', truncated: false } });
});
