CREATE TABLE "calendar_busy_days" (
	"source_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"day" date NOT NULL,
	"spans" bytea NOT NULL,
	CONSTRAINT "calendar_busy_days_source_id_day_pk" PRIMARY KEY("source_id","day")
);
--> statement-breakpoint
ALTER TABLE "calendar_busy_days" ADD CONSTRAINT "calendar_busy_days_source_id_calendar_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."calendar_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calendar_busy_days_user_day_idx" ON "calendar_busy_days" USING btree ("user_id","day");--> statement-breakpoint
INSERT INTO "calendar_busy_days" ("source_id", "user_id", "day", "spans")
SELECT t.source_id, t.user_id, (t.start_at AT TIME ZONE 'UTC')::date,
  string_agg(float8send(round(date_part('epoch', t.start_at) * 1000)) || float8send(round(date_part('epoch', t.end_at) * 1000)), ''::bytea ORDER BY t.start_at, t.end_at)
FROM "calendar_busy_times" t
GROUP BY 1, 2, 3;
