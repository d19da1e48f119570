import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';

export const RefreshApiKeyBody = Type.Object({
  // No schema default: a default filled in here could not be told from a value sent with apiKeyNeverExpires.
  apiKeyDaysValid: Type.Optional(Type.Integer({ minimum: 1, description: 'Days until the new key expires (default 30)' })),
  apiKeyNeverExpires: Type.Optional(Type.Boolean({ description: 'When true the new key never expires' })),
});

export const RefreshApiKeyResponse = Envelope(Type.Object({ apiKey: Type.String({ pattern: '^svc_' }) }));
