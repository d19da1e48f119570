CREATE TABLE "event_type_hosts" (
	"event_type_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"mandatory" boolean DEFAULT false NOT NULL,
	"priority" integer DEFAULT 2 NOT NULL,
	"weight" integer DEFAULT 100 NOT NULL,
	"group_id" text,
	"schedule_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "event_type_hosts_event_type_id_user_id_pk" PRIMARY KEY("event_type_id","user_id"),
	CONSTRAINT "event_type_hosts_priority_check" CHECK ("event_type_hosts"."priority" between 0 and 4),
	CONSTRAINT "event_type_hosts_weight_check" CHECK ("event_type_hosts"."weight" >= 0)
);
--> statement-breakpoint
CREATE TABLE "event_type_private_links" (
	"id" serial PRIMARY KEY NOT NULL,
	"event_type_id" integer NOT NULL,
	"link_hash" text NOT NULL,
	"link_sealed" text NOT NULL,
	"expires_at" timestamp with time zone,
	"max_usage_count" integer,
	"usage_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "booking_hosts" (
	"booking_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	CONSTRAINT "booking_hosts_booking_id_user_id_pk" PRIMARY KEY("booking_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "event_types" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "team_id" integer;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "parent_id" integer;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "scheduling_type" text;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "assign_all_team_members" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "reschedule_with_same_round_robin_host" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "is_rr_weights_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "email_settings" jsonb;--> statement-breakpoint
ALTER TABLE "event_type_hosts" ADD CONSTRAINT "event_type_hosts_event_type_id_event_types_id_fk" FOREIGN KEY ("event_type_id") REFERENCES "public"."event_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_type_hosts" ADD CONSTRAINT "event_type_hosts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_type_hosts" ADD CONSTRAINT "event_type_hosts_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_type_private_links" ADD CONSTRAINT "event_type_private_links_event_type_id_event_types_id_fk" FOREIGN KEY ("event_type_id") REFERENCES "public"."event_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_type_hosts_user_id_idx" ON "event_type_hosts" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "event_type_private_links_link_hash_key" ON "event_type_private_links" USING btree ("link_hash");--> statement-breakpoint
CREATE INDEX "event_type_private_links_event_type_id_idx" ON "event_type_private_links" USING btree ("event_type_id");--> statement-breakpoint
CREATE INDEX "booking_hosts_user_id_end_at_idx" ON "booking_hosts" USING btree ("user_id","end_at");--> statement-breakpoint
ALTER TABLE "event_types" ADD CONSTRAINT "event_types_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_types" ADD CONSTRAINT "event_types_parent_id_event_types_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."event_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "event_types_team_id_slug_lower_key" ON "event_types" USING btree ("team_id",lower("slug"));--> statement-breakpoint
CREATE INDEX "event_types_parent_id_idx" ON "event_types" USING btree ("parent_id");--> statement-breakpoint
ALTER TABLE "event_types" ADD CONSTRAINT "event_types_owner_check" CHECK ("event_types"."user_id" is not null or "event_types"."team_id" is not null);--> statement-breakpoint
ALTER TABLE "event_types" ADD CONSTRAINT "event_types_scheduling_type_check" CHECK ("event_types"."scheduling_type" in ('collective', 'roundRobin', 'managed'));--> statement-breakpoint
-- Every booking's organizer is one of its hosts: existing bookings first, then every new one by trigger.
INSERT INTO "booking_hosts" ("booking_id", "user_id", "start_at", "end_at", "status")
  SELECT "id", "user_id", "start_at", "end_at", "status" FROM "bookings";--> statement-breakpoint
CREATE FUNCTION "booking_hosts_follow_booking"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "booking_hosts" ("booking_id", "user_id", "start_at", "end_at", "status")
      VALUES (NEW."id", NEW."user_id", NEW."start_at", NEW."end_at", NEW."status");
    RETURN NULL;
  END IF;
  -- A new organizer (a reassignment) takes the old organizer's place among the hosts.
  IF NEW."user_id" <> OLD."user_id" THEN
    DELETE FROM "booking_hosts" WHERE "booking_id" = NEW."id" AND "user_id" = NEW."user_id";
    UPDATE "booking_hosts" SET "user_id" = NEW."user_id" WHERE "booking_id" = NEW."id" AND "user_id" = OLD."user_id";
  END IF;
  IF NEW."start_at" <> OLD."start_at" OR NEW."end_at" <> OLD."end_at" OR NEW."status" <> OLD."status" THEN
    UPDATE "booking_hosts" SET "start_at" = NEW."start_at", "end_at" = NEW."end_at", "status" = NEW."status" WHERE "booking_id" = NEW."id";
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "bookings_hosts_on_insert" AFTER INSERT ON "bookings" FOR EACH ROW EXECUTE FUNCTION "booking_hosts_follow_booking"();--> statement-breakpoint
CREATE TRIGGER "bookings_hosts_on_update" AFTER UPDATE OF "user_id", "start_at", "end_at", "status" ON "bookings" FOR EACH ROW EXECUTE FUNCTION "booking_hosts_follow_booking"();--> statement-breakpoint
-- The last line of defence now covers every host of a booking, not only its organizer.
ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_host_time_no_overlap" EXCLUDE USING gist ("user_id" WITH =, tstzrange("start_at", "end_at") WITH &&) WHERE ("status" = 'accepted');
