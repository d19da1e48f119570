import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';

const App = Type.String({ minLength: 1, maxLength: 64, description: '`google-meet`, `zoom`, `msteams` (and, for the default, the built-in `daily-video` / `svc-video`)' });
const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });

export const AppParams = Type.Object({ app: App });
export const TeamParams = Type.Object({ orgId: Id, teamId: Id });
export const TeamAppParams = Type.Object({ orgId: Id, teamId: Id, app: App });

export const ConferencingAppOutput = Type.Object({
  id: Type.Integer({ description: 'Id of the conferencing app credentials' }),
  type: Type.String({ description: 'google_video, zoom_video or office365_video' }),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  teamId: Type.Union([Type.Integer(), Type.Null()]),
  appId: Type.String(),
  invalid: Type.Boolean(),
});

export const ConferencingAppsEnvelope = Envelope(Type.Array(ConferencingAppOutput));
export const ConferencingAppEnvelope = Envelope(ConferencingAppOutput);

export const StatusOnly = Type.Object({ status: Type.Literal('success') });

export const DefaultAppOutput = Type.Object({
  status: Type.Literal('success'),
  data: Type.Optional(Type.Object({ appSlug: Type.String(), appLink: Type.Optional(Type.String()) })),
});

export const AuthUrlQuery = Type.Object({
  returnTo: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the browser goes once the app is connected (an http(s) URL)' })),
  onErrorReturnTo: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the browser goes when connecting fails (an http(s) URL)' })),
});

export const AuthUrlOutput = Envelope(Type.Object({ url: Type.String() }));

export const CallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 8192 })),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 512 })),
  error_description: Type.Optional(Type.String({ maxLength: 4096 })),
});
