CREATE TABLE "calendar_push_channels" (
	"id" serial PRIMARY KEY NOT NULL,
	"source_id" integer NOT NULL,
	"channel_id" text NOT NULL,
	"resource_id" text,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calendar_push_channels" ADD CONSTRAINT "calendar_push_channels_source_id_calendar_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."calendar_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_push_channels_channel_idx" ON "calendar_push_channels" USING btree ("channel_id");--> statement-breakpoint
CREATE INDEX "calendar_push_channels_source_idx" ON "calendar_push_channels" USING btree ("source_id");