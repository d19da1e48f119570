CREATE TABLE "conferencing_apps" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer,
	"team_id" integer,
	"type" text NOT NULL,
	"app_id" text NOT NULL,
	"credentials_sealed" text,
	"account_email" text,
	"invalid" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conferencing_apps_one_owner_check" CHECK (("conferencing_apps"."user_id" is null) <> ("conferencing_apps"."team_id" is null))
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "default_conferencing_app" text;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "default_conferencing_app" text;--> statement-breakpoint
ALTER TABLE "conferencing_apps" ADD CONSTRAINT "conferencing_apps_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conferencing_apps" ADD CONSTRAINT "conferencing_apps_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "conferencing_apps_user_type_idx" ON "conferencing_apps" USING btree ("user_id","type") WHERE "conferencing_apps"."user_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "conferencing_apps_team_type_idx" ON "conferencing_apps" USING btree ("team_id","type") WHERE "conferencing_apps"."team_id" is not null;