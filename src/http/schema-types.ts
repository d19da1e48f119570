import { Type, type TUnsafe } from 'typebox';

/** A string enum that shows as `{type: "string", enum: [...]}` in OpenAPI. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function IntegerEnum<const T extends readonly number[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'integer', enum: [...values], ...options });
}

/** A value that may be null on the wire. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
