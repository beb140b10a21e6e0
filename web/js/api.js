// The HTTP lobby API (protocol.md, "HTTP").

import { ClientError, ErrorCode } from './protocol.js';

// An error answer without an error body (a proxy's page, say) still gets a code.
const CODE_BY_STATUS = { 404: ClientError.NO_ROOM, 422: ErrorCode.BAD_NAME };

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body ? { 'Content-Type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError(0, ClientError.NETWORK, String(e));
  }
  let data = null;
  try { data = await res.json(); } catch { /* empty or not JSON */ }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(res.status, err.code || CODE_BY_STATUS[res.status] || ClientError.HTTP, err.message);
  }
  return data;
}

/** Room codes are case-insensitive; spaces and dashes people type are dropped. */
export function normalizeCode(code) {
  return String(code || '').toUpperCase().replace(/[^A-Z0-9]/g, '');
}

export const createRoom = (name) => call('POST', '/api/rooms', { name });
export const joinRoom = (code, name) =>
  call('POST', `/api/rooms/${encodeURIComponent(normalizeCode(code))}/players`, { name });
export const roomInfo = (code) => call('GET', `/api/rooms/${encodeURIComponent(normalizeCode(code))}`);
