import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';

export const RefreshApiKeyBody = Type.Object({
  apiKeyDaysValid: Type.Optional(Type.Integer({ minimum: 1, default: 30, description: 'Days until the new key expires' })),
  apiKeyNeverExpires: Type.Optional(Type.Boolean({ description: 'When true the new key never expires' })),
});

export const RefreshApiKeyResponse = Envelope(Type.Object({ apiKey: Type.String({ pattern: '^svc_' }) }));
