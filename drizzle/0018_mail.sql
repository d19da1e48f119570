CREATE TABLE "mail_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"message_id" bigint NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"error" text,
	"response" text
);
--> statement-breakpoint
CREATE TABLE "mail_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"booking_event_id" bigint,
	"kind" text NOT NULL,
	"recipient_email" text NOT NULL,
	"recipient_name" text,
	"recipient_role" text NOT NULL,
	"recipient_time_zone" text NOT NULL,
	"recipient_locale" text,
	"method" text,
	"sequence" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "ics_sequence" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "calendar_invites" jsonb;--> statement-breakpoint
ALTER TABLE "mail_attempts" ADD CONSTRAINT "mail_attempts_message_id_mail_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."mail_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_attempts_message_id_idx" ON "mail_attempts" USING btree ("message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "mail_messages_uid_key" ON "mail_messages" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "mail_messages_booking_event_id_idx" ON "mail_messages" USING btree ("booking_event_id");--> statement-breakpoint
CREATE INDEX "mail_messages_created_at_idx" ON "mail_messages" USING btree ("created_at");