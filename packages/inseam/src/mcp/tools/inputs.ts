/** Input pieces and bounds the filesystem tools share. */
import { z } from 'zod';

/**
 * The largest page one read call may ask for over MCP. Base64 grows bytes by a third, and the
 * SDK's stdio transport refuses messages over 10 MB; 4 MiB keeps every answer well under it.
 */
export const MCP_MAX_READ_BYTES = 4 * 1024 * 1024;

export const addressInput = z.string().min(1).max(8192).describe('An address: inseam://{network}/{host}/{path}, or the short form {host}://{path} in this session\'s network.');
