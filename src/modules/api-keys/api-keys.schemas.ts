import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';

/** 100 years: the reference sets no maximum, but an expiry must be a date that can be stored. */
export const MAX_API_KEY_DAYS_VALID = 36_500;

export const RefreshApiKeyBody = Type.Object({
  // No schema default: a default filled in here could not be told from a value sent with apiKeyNeverExpires.
  apiKeyDaysValid: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_API_KEY_DAYS_VALID, description: 'Days until the new key expires, at most 36500 (100 years); default 30' })),
  apiKeyNeverExpires: Type.Optional(Type.Boolean({ description: 'When true the new key never expires' })),
});

export const RefreshApiKeyResponse = Envelope(Type.Object({ apiKey: Type.String({ pattern: '^svc_' }) }));
