// The whole database schema, one file per area; drizzle and drizzle-kit read it from here.
export * from './schema/users.js';
export * from './schema/jobs.js';
export * from './schema/scheduling.js';
export * from './schema/bookings.js';
export * from './schema/webhooks.js';
export * from './schema/settings.js';
export * from './schema/teams.js';
export * from './schema/platform.js';
export * from './schema/oauth.js';
export * from './schema/mail.js';
export * from './schema/calendars.js';
export * from './schema/conferencing.js';
export * from './schema/attributes.js';
export * from './schema/routing-forms.js';
export * from './schema/workflows.js';
export * from './schema/payments.js';
