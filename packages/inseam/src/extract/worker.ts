/**
 * An extraction worker: one document at a time, answered by id. A parser that throws something
 * other than an ExtractFailure is reported as `crashed` without its message, which may quote
 * the document or name a file of the machine.
 */
import { parentPort } from 'node:worker_threads';
import { extractText } from './extract.js';
import { ExtractFailure, kindName } from './limits.js';
import type { ExtractReply, ExtractRequest } from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('The extraction worker runs only as a worker thread.');

// Parsers log warnings about the documents they read; they belong to nobody's output.
for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) console[method] = () => undefined;

port.on('message', (request: ExtractRequest) => {
  void answer(request).then((reply) => port.postMessage(reply));
});

async function answer({ id, kind, bytes, limits }: ExtractRequest): Promise<ExtractReply> {
  try {
    return { id, result: await extractText(kind, bytes, limits) };
  } catch (error) {
    if (error instanceof ExtractFailure) return { id, failure: { code: error.code, message: error.message, details: error.details } };
    return { id, failure: { code: 'document_unreadable', message: `The ${kindName(kind)} document could not be read as text: its parser failed on it.`, details: { reason: 'crashed', kind } } };
  }
}
