/**
 * Tool errors as MCP answers. A failed tool call is a result with `isError: true` — never a
 * JSON-RPC error — so the agent reads what went wrong and can act on it: the text says
 * `[code] message`, and `structuredContent.error` carries `{ code, message, details }` with the
 * stable code of the platform's error taxonomy (docs/errors.md).
 *
 * An error that is not a `ConnectorError` is a bug: its message could hold anything (a host
 * path, a stack), so it is replaced by a fixed sentence and reported with `code: null`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isConnectorError, type ErrorCode, type ErrorDetails } from '@neuralis/package-system/contracts';

export interface ToolErrorBody {
  /** The platform's stable code; null for an unexpected failure. */
  readonly code: ErrorCode | null;
  readonly message: string;
  readonly details: ErrorDetails;
}

const UNEXPECTED = 'The tool failed unexpectedly inside inseam (a bug, not a problem with the request); the failure was not described to keep host details private. Retry, or report it.';

/** The error body for any thrown value; never leaks the message of a non-typed error. */
export function toolErrorBody(error: unknown): ToolErrorBody {
  if (isConnectorError(error)) return { code: error.code, message: error.message, details: error.details };
  return { code: null, message: UNEXPECTED, details: {} };
}

/** A tool result saying the call failed, with the typed code in the text and the structured content. */
export function toolErrorResult(error: unknown): CallToolResult {
  const body = toolErrorBody(error);
  return {
    isError: true,
    content: [{ type: 'text', text: body.code === null ? body.message : `[${body.code}] ${body.message}` }],
    structuredContent: { error: body },
  };
}
