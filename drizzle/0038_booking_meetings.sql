CREATE TABLE "booking_meetings" (
	"id" integer PRIMARY KEY DEFAULT nextval('booking_calendar_events_id_seq') NOT NULL,
	"booking_id" integer NOT NULL,
	"type" text NOT NULL,
	"user_id" integer,
	"team_id" integer,
	"external_id" text NOT NULL,
	"join_url" text NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"deleting" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "booking_meetings_one_owner_check" CHECK (("booking_meetings"."user_id" is null) <> ("booking_meetings"."team_id" is null))
);
--> statement-breakpoint
ALTER TABLE "booking_meetings" ADD CONSTRAINT "booking_meetings_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_meetings" ADD CONSTRAINT "booking_meetings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_meetings" ADD CONSTRAINT "booking_meetings_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "booking_meetings_booking_idx" ON "booking_meetings" USING btree ("booking_id");