-- The last line of defence against double booking: two accepted bookings of one host never overlap,
-- whatever a bug above (or a manual write) may attempt. Booking writes also lock each host and
-- re-check with the slot engine, which adds buffers, limits and seats; this constraint only knows time.
CREATE EXTENSION IF NOT EXISTS btree_gist;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_host_time_no_overlap" EXCLUDE USING gist ("user_id" WITH =, tstzrange("start_at", "end_at") WITH &&) WHERE ("status" = 'accepted');
