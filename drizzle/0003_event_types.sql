CREATE TABLE "event_types" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"length_in_minutes" integer NOT NULL,
	"length_in_minutes_options" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"slot_interval" integer,
	"minimum_booking_notice" integer DEFAULT 120 NOT NULL,
	"before_event_buffer" integer DEFAULT 0 NOT NULL,
	"after_event_buffer" integer DEFAULT 0 NOT NULL,
	"offset_start" integer DEFAULT 0 NOT NULL,
	"schedule_id" integer,
	"hidden" boolean DEFAULT false NOT NULL,
	"seats_per_time_slot" integer,
	"seats_show_attendees" boolean DEFAULT false NOT NULL,
	"seats_show_availability_count" boolean DEFAULT true NOT NULL,
	"only_show_first_available_slot" boolean DEFAULT false NOT NULL,
	"show_optimized_slots" boolean DEFAULT false NOT NULL,
	"booking_requires_authentication" boolean DEFAULT false NOT NULL,
	"locations" jsonb NOT NULL,
	"booking_fields" jsonb NOT NULL,
	"booking_limits_count" jsonb,
	"booking_limits_duration" jsonb,
	"booker_active_bookings_limit" jsonb,
	"booking_window" jsonb,
	"confirmation_policy" jsonb,
	"recurrence" jsonb,
	"settings" jsonb NOT NULL,
	"calendar_invites" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_types" ADD CONSTRAINT "event_types_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_types" ADD CONSTRAINT "event_types_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "event_types_user_id_slug_lower_key" ON "event_types" USING btree ("user_id",lower("slug"));--> statement-breakpoint
CREATE INDEX "event_types_schedule_id_idx" ON "event_types" USING btree ("schedule_id");