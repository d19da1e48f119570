/** Query parameters that carry credentials: their values never reach a log line or an error body. */
const CREDENTIAL_PARAMS = new Set([
  'apikey', 'api_key', 'key', 'token', 'access_token', 'refresh_token', 'id_token', 'code', 'code_verifier',
  'client_secret', 'secret', 'password', 'x-svc-secret-key',
]);

export function isCredentialParam(name: string): boolean {
  return CREDENTIAL_PARAMS.has(name.trim().toLowerCase());
}

/** The request URL with the values of credential-bearing query parameters replaced by `[REDACTED]`. */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return url;
  const query = url.slice(queryAt + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replaceAll('+', ' '));
    } catch {
      // A malformed escape: judge the name as written.
    }
    return equals >= 0 && isCredentialParam(decoded) ? `${name}=[REDACTED]` : pair;
  });
  return `${url.slice(0, queryAt)}?${query.join('&')}`;
}
