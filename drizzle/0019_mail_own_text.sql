ALTER TABLE "mail_messages" ADD COLUMN "subject" text;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD COLUMN "text_body" text;--> statement-breakpoint
-- Hand-written: OAuth review notifications still unsent in email_outbox move to the mail outbox with their
-- send jobs (max_attempts: MAIL_MAX_ATTEMPTS at the time of writing) instead of being dropped with the table.
WITH "moved" AS (
	INSERT INTO "mail_messages" ("uid", "kind", "recipient_email", "recipient_role", "recipient_time_zone", "subject", "text_body", "created_at")
	SELECT gen_random_uuid()::text, CASE "kind" WHEN 'oauth_client_approved' THEN 'oauthClientApproved' WHEN 'oauth_client_rejected' THEN 'oauthClientRejected' ELSE "kind" END,
		"to_address", 'owner', 'UTC', "subject", "text_body", "created_at"
	FROM "email_outbox" WHERE "sent_at" IS NULL ORDER BY "id"
	RETURNING "id"
)
INSERT INTO "jobs" ("kind", "payload", "max_attempts") SELECT 'mail.send', jsonb_build_object('messageId', "id"), 33 FROM "moved";--> statement-breakpoint
DROP TABLE "email_outbox" CASCADE;
