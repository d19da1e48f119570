// Wire shapes of the verified resources, from the reference's controllers and output classes: its
// published schemas are broken (every `data` points at a schedule's schema), so they are not followed.
import { Type } from 'typebox';
import { Nullable } from '../../http/schema-types.js';

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: 2147483647, description });
const EmailAddress = Type.String({ format: 'email', maxLength: 254, description: 'The address to verify (compared in lower case)', examples: ['ada@example.com'] });
const Phone = Type.String({ minLength: 1, maxLength: 40, description: 'The number to verify, written internationally (+ and the country code)', examples: ['+37255556666'] });
const Code = Type.String({ minLength: 1, maxLength: 64, description: 'The 6-digit code sent to the address or number', examples: ['123456'] });

export const RequestEmailBody = Type.Object({ email: EmailAddress });
export const RequestPhoneBody = Type.Object({ phone: Phone });
export const VerifyEmailBody = Type.Object({ email: EmailAddress, code: Code });
export const VerifyPhoneBody = Type.Object({ phone: Phone, code: Code });

export const UserIdParams = Type.Object({ id: Id('A verified email or phone number') });
export const TeamParams = Type.Object({ teamId: Id('The team') });
export const TeamIdParams = Type.Object({ teamId: Id('The team'), id: Id('A verified email or phone number of the team') });
export const OrgTeamParams = Type.Object({ orgId: Id('The organization'), teamId: Id('One of its teams') });
export const OrgTeamIdParams = Type.Object({ orgId: Id('The organization'), teamId: Id('One of its teams'), id: Id('A verified email or phone number of the team') });

/** A code was sent: the reference answers the status alone. */
export const CodeSentOutput = Type.Object({ status: Type.Literal('success') });

export const UserEmailOutput = Type.Object({
  id: Type.Integer({ examples: [789] }),
  email: Type.String({ examples: ['ada@example.com'] }),
  userId: Type.Integer({ description: 'The user it is verified for', examples: [45] }),
});
export const TeamEmailOutput = Type.Object({
  id: Type.Integer({ examples: [789] }),
  email: Type.String({ examples: ['desk@example.com'] }),
  teamId: Type.Integer({ description: 'The team it is verified for', examples: [89] }),
  userId: Nullable(Type.Integer({ description: 'Who verified it for the team' })),
});
export const UserPhoneOutput = Type.Object({
  id: Type.Integer({ examples: [789] }),
  phoneNumber: Type.String({ description: 'E.164', examples: ['+37255556666'] }),
  userId: Type.Integer({ description: 'The user it is verified for', examples: [45] }),
});
export const TeamPhoneOutput = Type.Object({
  id: Type.Integer({ examples: [789] }),
  phoneNumber: Type.String({ description: 'E.164', examples: ['+37255556666'] }),
  teamId: Type.Integer({ description: 'The team it is verified for', examples: [89] }),
  userId: Nullable(Type.Integer({ description: 'Who verified it for the team' })),
});
