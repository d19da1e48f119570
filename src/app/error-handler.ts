import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorKind } from '../lib/errors.js';
import { isCredentialParam, redactUrl } from '../http/redact.js';
import { fieldErrorsMessage, toFieldErrors } from '../http/validation.js';

/** The reference's HTTP status and exception name for each kind of domain error. */
const KIND_TO_HTTP: Record<ErrorKind, { status: number; code: string }> = {
  bad_request: { status: 400, code: 'BadRequestException' },
  unauthorized: { status: 401, code: 'UnauthorizedException' },
  token_expired: { status: 498, code: 'TokenExpiredException' },
  forbidden: { status: 403, code: 'ForbiddenException' },
  not_found: { status: 404, code: 'NotFoundException' },
  conflict: { status: 409, code: 'ConflictException' },
  unprocessable: { status: 422, code: 'UnprocessableEntityException' },
  too_many_requests: { status: 429, code: 'ThrottlerException' },
  unavailable: { status: 503, code: 'ServiceUnavailableException' },
};

const STATUS_TO_CODE: Record<number, string> = {
  400: 'BadRequestException',
  401: 'UnauthorizedException',
  403: 'ForbiddenException',
  404: 'NotFoundException',
  405: 'MethodNotAllowedException',
  406: 'NotAcceptableException',
  408: 'RequestTimeoutException',
  414: 'UriTooLongException',
  409: 'ConflictException',
  413: 'PayloadTooLargeException',
  415: 'UnsupportedMediaTypeException',
  422: 'UnprocessableEntityException',
  429: 'ThrottlerException',
  431: 'RequestHeaderFieldsTooLargeException',
  503: 'ServiceUnavailableException',
};

interface ErrorBody {
  status: 'error';
  timestamp: string;
  path: string;
  error: { code: string; message: string; details?: unknown };
}

export function errorBody(request: FastifyRequest, code: string, message: string, details?: unknown): ErrorBody {
  return {
    status: 'error',
    timestamp: new Date().toISOString(),
    path: redactUrl(request.url),
    error: details === undefined ? { code, message } : { code, message, details },
  };
}

export function sendError(reply: FastifyReply, status: number, code: string, message: string, details?: unknown) {
  reply.request.answeredError = { code, reason: (details as { reason?: string } | undefined)?.reason };
  return reply.status(status).type('application/json; charset=utf-8').send(errorBody(reply.request, code, message, details));
}

/** PostgreSQL error codes that are the caller's fault, surfaced through driver and ORM wrappers. */
function databaseErrorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof DomainError) {
    const { status, code } = KIND_TO_HTTP[error.kind];
    const retryAfter = error.details?.retryAfterSeconds;
    if (status === 429 && typeof retryAfter === 'number') reply.header('Retry-After', retryAfter);
    return sendError(reply, status, code, error.message, { ...error.details, reason: error.reason });
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const part = fastifyError.validationContext;
    const input = part === 'body' ? request.body : part === 'querystring' ? request.query : part === 'params' ? request.params : request.headers;
    const errors = toFieldErrors(fastifyError.validation as never, input, part).map((error) =>
      part === 'querystring' && isCredentialParam(error.property) && error.value !== undefined ? { ...error, value: '[REDACTED]' } : error,
    );
    return sendError(reply, 400, 'BadRequestException', fieldErrorsMessage(errors), { errors, reason: 'validation_failed' });
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    const code = STATUS_TO_CODE[status] ?? 'HttpException';
    return sendError(reply, status, code, fastifyError.message, { reason: fastifyError.code ?? 'http_error' });
  }
  switch (databaseErrorCode(error)) {
    case '23505':
      return sendError(reply, 409, 'ConflictException', 'Invalid Input: Trying to create a record that already exists.', { reason: 'duplicate_resource' });
    case '23P01':
      // The bookings exclusion constraint: an accepted booking of this host already holds the time.
      return sendError(reply, 409, 'ConflictException', 'booking_conflict_error', { reason: 'booking_conflict' });
    case '23503':
      return sendError(reply, 400, 'BadRequestException', 'Invalid Input: a referenced record does not exist.', { reason: 'missing_reference' });
    case '22003':
    case '22P02':
    case '22007':
    case '22008':
    case '22021':
    case '22P05':
      return sendError(reply, 400, 'BadRequestException', 'Invalid Input: a value is out of range or malformed.', { reason: 'invalid_value' });
    default:
      break;
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendError(reply, 500, 'InternalServerErrorException', 'Internal server error', { reason: 'internal_error' });
}

/**
 * Errors Node's HTTP parser meets before there is a request to route (headers over the size limit, a
 * malformed request line, a timeout): answered in the same envelope as every other error, then the
 * connection is closed, as Node does.
 */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request was not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request header fields too large']
        : [400, 'Malformed HTTP request'];
  const body = JSON.stringify({
    status: 'error',
    timestamp: new Date().toISOString(),
    path: '',
    error: { code: STATUS_TO_CODE[status] ?? 'HttpException', message, details: { reason: error.code ?? 'client_error' } },
  });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
