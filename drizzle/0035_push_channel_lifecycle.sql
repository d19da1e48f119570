ALTER TABLE "calendar_push_channels" ADD COLUMN "renew" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "calendar_sources" ADD COLUMN "push_retry_at" timestamp with time zone;