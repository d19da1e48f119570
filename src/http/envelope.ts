import { Type, type TSchema } from 'typebox';

export const SUCCESS = 'success' as const;

export function ok<T>(data: T): { status: 'success'; data: T } {
  return { status: SUCCESS, data };
}

/** Response schema of a success body: `{status: "success", data}`. */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ status: Type.Literal('success'), data });

export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal('error'),
    timestamp: Type.String({ format: 'date-time' }),
    path: Type.String(),
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Unknown()),
    }),
  },
  { $id: 'ErrorEnvelope' },
);
