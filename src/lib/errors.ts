/**
 * Domain errors: services throw these with a stable `reason`; `app/error-handler.ts` alone decides the
 * HTTP status and the reference-compatible `code` and message.
 */
export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'token_expired'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'too_many_requests'
  | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** Stable machine-readable reason, surfaced as `error.details.reason`. */
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const badRequest = (reason: string, message: string, details?: Record<string, unknown>) =>
  new DomainError('bad_request', reason, message, details);
export const unauthorized = (reason: string, message: string) => new DomainError('unauthorized', reason, message);
export const forbidden = (reason: string, message: string) => new DomainError('forbidden', reason, message);
export const notFound = (reason: string, message: string) => new DomainError('not_found', reason, message);
export const conflict = (reason: string, message: string, details?: Record<string, unknown>) =>
  new DomainError('conflict', reason, message, details);

/** A validation failure on one named field, shaped like the reference's class-validator errors. */
export function invalidField(property: string, message: string, value?: unknown): DomainError {
  return badRequest('validation_failed', `${property} ${message}`, {
    errors: [{ property, value, constraints: { [property]: `${property} ${message}` } }],
  });
}

/** An outside provider svc needs for the request did not answer: nothing was changed, the request may be repeated. */
export const unavailable = (reason: string, message: string) => new DomainError('unavailable', reason, message);

export const unprocessable = (reason: string, message: string, details?: Record<string, unknown>) =>
  new DomainError('unprocessable', reason, message, details);

/** A 400 whose message is a whole sentence of its own (a reference message), still naming the field. */
export function fieldRejected(property: string, reason: string, message: string, value?: unknown): DomainError {
  return badRequest(reason, message, { errors: [{ property, value, constraints: { [property]: message } }] });
}
