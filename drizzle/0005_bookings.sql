CREATE TABLE "booking_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"booking_id" integer NOT NULL,
	"booking_uid" text NOT NULL,
	"trigger" text NOT NULL,
	"user_id" integer NOT NULL,
	"event_type_id" integer,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"response_status" integer NOT NULL,
	"response_body" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
ALTER TABLE "booking_attendees" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "booking_attendees" ADD COLUMN "phone_number" text;--> statement-breakpoint
ALTER TABLE "booking_attendees" ADD COLUMN "absent" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "booking_attendees" ADD COLUMN "is_guest" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "booking_attendees" ADD COLUMN "seat_uid" text;--> statement-breakpoint
ALTER TABLE "booking_attendees" ADD COLUMN "seat_responses" jsonb;--> statement-breakpoint
ALTER TABLE "booking_attendees" ADD COLUMN "seat_metadata" jsonb;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "location" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "responses" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "cancellation_reason" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "cancelled_by_email" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "rejection_reason" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "rescheduling_reason" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "rescheduled_by_email" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "rescheduled_from_uid" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "rescheduled_to_uid" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "absent_host" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "rating" integer;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "ics_uid" text DEFAULT gen_random_uuid()::text NOT NULL;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "recurring_booking_uid" text;--> statement-breakpoint
CREATE INDEX "booking_events_booking_uid_idx" ON "booking_events" USING btree ("booking_uid");--> statement-breakpoint
CREATE INDEX "booking_events_created_at_idx" ON "booking_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "booking_attendees_email_lower_idx" ON "booking_attendees" USING btree (lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "booking_attendees_seat_uid_key" ON "booking_attendees" USING btree ("seat_uid");--> statement-breakpoint
CREATE INDEX "bookings_recurring_booking_uid_idx" ON "bookings" USING btree ("recurring_booking_uid");