import type { Static } from 'typebox';
import type { VerifiedRow } from './verified-resources.repository.js';
import type { TeamEmailOutput, TeamPhoneOutput, UserEmailOutput, UserPhoneOutput } from './verified-resources.schemas.js';

// A user's rows always carry their user id (they are selected by it); a team's carry its id.
export const presentUserEmail = (row: VerifiedRow): Static<typeof UserEmailOutput> => ({ id: row.id, email: row.value, userId: row.userId! });

export const presentTeamEmail = (row: VerifiedRow): Static<typeof TeamEmailOutput> => ({ id: row.id, email: row.value, teamId: row.teamId!, userId: row.userId });

export const presentUserPhone = (row: VerifiedRow): Static<typeof UserPhoneOutput> => ({ id: row.id, phoneNumber: row.value, userId: row.userId! });

export const presentTeamPhone = (row: VerifiedRow): Static<typeof TeamPhoneOutput> => ({ id: row.id, phoneNumber: row.value, teamId: row.teamId!, userId: row.userId });
