import { type TSchema, Type, type TUnsafe } from 'typebox';

/** A string enum that shows as `{type: "string", enum: [...]}` in OpenAPI. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function IntegerEnum<const T extends readonly number[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'integer', enum: [...values], ...options });
}

/** A value or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
