import { Type } from 'typebox';
/**
 * `svc-api-version`: resolved once per request. Like the reference, any missing or unknown value
 * silently means the oldest version; there is no "unsupported version" error.
 */
export const API_VERSIONS = ['2024-04-15', '2024-06-11', '2024-06-14', '2024-08-13', '2024-09-04', '2026-06-12'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const DEFAULT_API_VERSION: ApiVersion = '2024-04-15';
export const API_VERSION_HEADER = 'svc-api-version';

const known = new Set<string>(API_VERSIONS);

export function resolveApiVersion(header: string | string[] | undefined): ApiVersion {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && known.has(value) ? (value as ApiVersion) : DEFAULT_API_VERSION;
}

/**
 * A per-module table of wire variants keyed by the versions where the shape changed. A request with
 * a version the table does not list is served by the table's `fallback` entry (the reference serves
 * such calls with its oldest controller); `undefined` means the route does not exist for it (404).
 */
export interface VersionTable<Variant> {
  variants: Partial<Record<ApiVersion, Variant>>;
  fallback?: Variant;
}

export function pickVariant<Variant>(table: VersionTable<Variant>, version: ApiVersion): Variant | undefined {
  return table.variants[version] ?? table.fallback;
}

/**
 * The headers a route documents: `svc-api-version` (optional, defaulting to the route's version) and,
 * on write routes, `Idempotency-Key`. Headers a route does not declare are dropped before its handler.
 */
export function versionHeaderSchema(version: ApiVersion, description = `Send ${version}`, options: { idempotent?: boolean } = {}) {
  return Type.Object({
    [API_VERSION_HEADER]: Type.Optional(Type.String({ description, default: version })),
    ...(options.idempotent
      ? { 'idempotency-key': Type.Optional(Type.String({ maxLength: 255, description: 'Makes retries safe: the same key and request replay the first answer for 24 hours' })) }
      : {}),
  });
}
