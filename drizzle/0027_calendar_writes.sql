CREATE TABLE "booking_calendar_events" (
	"id" serial PRIMARY KEY NOT NULL,
	"ics_uid" text NOT NULL,
	"booking_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"connection_id" integer NOT NULL,
	"type" text NOT NULL,
	"calendar_external_id" text NOT NULL,
	"event_id" text NOT NULL,
	"etag" text,
	"content_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendar_event_leases" (
	"ics_uid" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"leased_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "destination_calendars" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"event_type_id" integer,
	"source_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "booking_calendar_events" ADD CONSTRAINT "booking_calendar_events_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_calendar_events" ADD CONSTRAINT "booking_calendar_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_calendar_events" ADD CONSTRAINT "booking_calendar_events_connection_id_calendar_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."calendar_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "destination_calendars" ADD CONSTRAINT "destination_calendars_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "destination_calendars" ADD CONSTRAINT "destination_calendars_event_type_id_event_types_id_fk" FOREIGN KEY ("event_type_id") REFERENCES "public"."event_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "destination_calendars" ADD CONSTRAINT "destination_calendars_source_id_calendar_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."calendar_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "booking_calendar_events_uid_user_idx" ON "booking_calendar_events" USING btree ("ics_uid","user_id");--> statement-breakpoint
CREATE INDEX "booking_calendar_events_booking_idx" ON "booking_calendar_events" USING btree ("booking_id");--> statement-breakpoint
CREATE INDEX "booking_calendar_events_connection_idx" ON "booking_calendar_events" USING btree ("connection_id");--> statement-breakpoint
CREATE UNIQUE INDEX "destination_calendars_user_idx" ON "destination_calendars" USING btree ("user_id") WHERE "destination_calendars"."event_type_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "destination_calendars_event_type_idx" ON "destination_calendars" USING btree ("event_type_id","user_id");--> statement-breakpoint
CREATE INDEX "destination_calendars_source_idx" ON "destination_calendars" USING btree ("source_id");--> statement-breakpoint
CREATE INDEX "bookings_ics_uid_idx" ON "bookings" USING btree ("ics_uid");