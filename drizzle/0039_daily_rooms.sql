ALTER TABLE "booking_meetings" ADD COLUMN "provider_id" text;--> statement-breakpoint
CREATE INDEX "booking_meetings_external_idx" ON "booking_meetings" USING btree ("external_id");