ALTER TABLE "event_types" ADD COLUMN "assign_rr_members_using_segment" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "rr_segment_query" jsonb;