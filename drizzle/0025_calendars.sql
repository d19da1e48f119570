CREATE TABLE "calendar_busy_times" (
	"id" serial PRIMARY KEY NOT NULL,
	"source_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"object_key" text DEFAULT '' NOT NULL,
	"uid" text,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	CONSTRAINT "calendar_busy_times_piece_check" CHECK ("calendar_busy_times"."end_at" > "calendar_busy_times"."start_at" and "calendar_busy_times"."end_at" - "calendar_busy_times"."start_at" <= interval '24 hours')
);
--> statement-breakpoint
CREATE TABLE "calendar_connections" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"type" text NOT NULL,
	"app_id" text NOT NULL,
	"credentials_sealed" text NOT NULL,
	"invalid" boolean DEFAULT false NOT NULL,
	"owner_told_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendar_sources" (
	"id" serial PRIMARY KEY NOT NULL,
	"connection_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"name" text NOT NULL,
	"is_primary" boolean DEFAULT false NOT NULL,
	"read_only" boolean DEFAULT true NOT NULL,
	"time_zone" text,
	"selected" boolean DEFAULT true NOT NULL,
	"sync_state" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"synced_from" timestamp with time zone,
	"synced_to" timestamp with time zone,
	"last_synced_at" timestamp with time zone,
	"failing_since" timestamp with time zone,
	"failure" text,
	"degraded" boolean DEFAULT true NOT NULL,
	"next_sync_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calendar_busy_times" ADD CONSTRAINT "calendar_busy_times_source_id_calendar_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."calendar_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD CONSTRAINT "calendar_connections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_sources" ADD CONSTRAINT "calendar_sources_connection_id_calendar_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."calendar_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_sources" ADD CONSTRAINT "calendar_sources_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calendar_busy_times_user_end_idx" ON "calendar_busy_times" USING btree ("user_id","end_at");--> statement-breakpoint
CREATE INDEX "calendar_busy_times_source_key_idx" ON "calendar_busy_times" USING btree ("source_id","object_key");--> statement-breakpoint
CREATE INDEX "calendar_connections_user_id_idx" ON "calendar_connections" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_sources_connection_external_idx" ON "calendar_sources" USING btree ("connection_id","external_id");--> statement-breakpoint
CREATE INDEX "calendar_sources_user_id_idx" ON "calendar_sources" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "calendar_sources_next_sync_idx" ON "calendar_sources" USING btree ("next_sync_at");