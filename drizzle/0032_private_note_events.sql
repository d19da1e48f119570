DROP INDEX "booking_calendar_events_uid_user_idx";--> statement-breakpoint
ALTER TABLE "booking_calendar_events" ADD COLUMN "note" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "booking_calendar_events_uid_user_note_idx" ON "booking_calendar_events" USING btree ("ics_uid","user_id","note");