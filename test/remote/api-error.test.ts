import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/remote/api-error.js';

describe('an error without an answer from the service', () => {
  it('says what happened to the connection in words, with the system code beside them', () => {
    const e = new ApiError({ code: 'network', method: 'POST', path: '/api/v1/projects/p/test-cases', cause: 'ECONNRESET' });
    expect(e.message).toBe('POST /api/v1/projects/p/test-cases failed (network): connection reset (ECONNRESET)');
    expect(e.details).toMatchObject({ cause: 'ECONNRESET' });
    const closed = new ApiError({ code: 'network', method: 'GET', path: '/x', cause: 'UND_ERR_SOCKET' });
    expect(closed.message).toBe('GET /x failed (network): connection closed (UND_ERR_SOCKET)');
  });

  it('keeps a cause it has no words for as it is, and prefers what the service said', () => {
    expect(new ApiError({ code: 'network', method: 'GET', path: '/x', cause: 'EWEIRD' }).message).toBe('GET /x failed (network): EWEIRD');
    expect(new ApiError({ code: 'server_error', status: 502, method: 'GET', path: '/x', serviceMessage: 'bad gateway', cause: 'ECONNRESET' }).message).toBe(
      'GET /x failed (server_error 502): bad gateway',
    );
  });
});
