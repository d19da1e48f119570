CREATE TABLE "schedules" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"time_zone" text NOT NULL,
	"availability" jsonb NOT NULL,
	"overrides" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "schedules_user_id_idx" ON "schedules" USING btree ("user_id");--> statement-breakpoint
-- Written by hand (users and schedules reference each other): a deleted schedule never leaves a dangling default.
ALTER TABLE "users" ADD CONSTRAINT "users_default_schedule_id_schedules_id_fk" FOREIGN KEY ("default_schedule_id") REFERENCES "public"."schedules"("id") ON DELETE set null ON UPDATE no action;
