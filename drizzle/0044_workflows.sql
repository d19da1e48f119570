CREATE TABLE "text_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"channel" text NOT NULL,
	"to_number" text NOT NULL,
	"body" text NOT NULL,
	"body_sealed" boolean DEFAULT false NOT NULL,
	"purpose" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"delivery_status" text,
	"provider_sid" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "verification_codes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"destination" text NOT NULL,
	"user_id" integer NOT NULL,
	"team_id" integer,
	"code_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_failures" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"code_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verified_emails" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer,
	"team_id" integer,
	"email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verified_phones" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer,
	"team_id" integer,
	"phone_number" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_reminders" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"dedupe_key" text NOT NULL,
	"workflow_id" integer NOT NULL,
	"step_id" integer NOT NULL,
	"booking_id" integer,
	"form_response_id" integer,
	"channel" text NOT NULL,
	"recipient_address" text NOT NULL,
	"recipient_name" text,
	"recipient_role" text NOT NULL,
	"recipient_time_zone" text NOT NULL,
	"recipient_locale" text,
	"scheduled_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'scheduled' NOT NULL,
	"message_uid" text,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "workflow_steps" (
	"id" serial PRIMARY KEY NOT NULL,
	"workflow_id" integer NOT NULL,
	"step_number" integer NOT NULL,
	"action" text NOT NULL,
	"recipient" text NOT NULL,
	"template" text NOT NULL,
	"sender" text,
	"subject" text DEFAULT '' NOT NULL,
	"html" text,
	"text" text,
	"email" text,
	"verified_email_id" integer,
	"phone" text,
	"verified_phone_id" integer,
	"phone_required" boolean DEFAULT false NOT NULL,
	"include_calendar_event" boolean DEFAULT false NOT NULL,
	"auto_translate_enabled" boolean DEFAULT false NOT NULL,
	"source_locale" text
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"id" serial PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"organization_id" integer NOT NULL,
	"user_id" integer,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"trigger" text NOT NULL,
	"offset_value" integer,
	"offset_unit" text,
	"active_on_all" boolean DEFAULT false NOT NULL,
	"event_type_ids" integer[] DEFAULT '{}'::int[] NOT NULL,
	"routing_form_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_messages" ADD COLUMN "html_body" text;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD COLUMN "body_sealed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD COLUMN "invitation_ics" text;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD COLUMN "sender_name" text;--> statement-breakpoint
ALTER TABLE "verification_codes" ADD CONSTRAINT "verification_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_codes" ADD CONSTRAINT "verification_codes_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_failures" ADD CONSTRAINT "verification_failures_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verified_emails" ADD CONSTRAINT "verified_emails_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verified_emails" ADD CONSTRAINT "verified_emails_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verified_phones" ADD CONSTRAINT "verified_phones_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verified_phones" ADD CONSTRAINT "verified_phones_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_reminders" ADD CONSTRAINT "workflow_reminders_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_reminders" ADD CONSTRAINT "workflow_reminders_step_id_workflow_steps_id_fk" FOREIGN KEY ("step_id") REFERENCES "public"."workflow_steps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_reminders" ADD CONSTRAINT "workflow_reminders_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_reminders" ADD CONSTRAINT "workflow_reminders_form_response_id_routing_form_responses_id_fk" FOREIGN KEY ("form_response_id") REFERENCES "public"."routing_form_responses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_steps" ADD CONSTRAINT "workflow_steps_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_organization_id_teams_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "text_messages_uid_key" ON "text_messages" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "text_messages_provider_sid_idx" ON "text_messages" USING btree ("provider_sid");--> statement-breakpoint
CREATE INDEX "text_messages_created_at_idx" ON "text_messages" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "verification_codes_user_idx" ON "verification_codes" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "verification_codes_destination_idx" ON "verification_codes" USING btree ("destination","created_at");--> statement-breakpoint
CREATE INDEX "verification_failures_user_idx" ON "verification_failures" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "verified_emails_user_key" ON "verified_emails" USING btree ("user_id","email") WHERE team_id is null;--> statement-breakpoint
CREATE UNIQUE INDEX "verified_emails_team_key" ON "verified_emails" USING btree ("team_id","email") WHERE team_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "verified_phones_user_key" ON "verified_phones" USING btree ("user_id","phone_number") WHERE team_id is null;--> statement-breakpoint
CREATE UNIQUE INDEX "verified_phones_team_key" ON "verified_phones" USING btree ("team_id","phone_number") WHERE team_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_reminders_dedupe_key" ON "workflow_reminders" USING btree ("dedupe_key") WHERE status <> 'cancelled';--> statement-breakpoint
CREATE INDEX "workflow_reminders_booking_idx" ON "workflow_reminders" USING btree ("booking_id");--> statement-breakpoint
CREATE INDEX "workflow_reminders_step_idx" ON "workflow_reminders" USING btree ("step_id");--> statement-breakpoint
CREATE INDEX "workflow_steps_workflow_idx" ON "workflow_steps" USING btree ("workflow_id","step_number");--> statement-breakpoint
CREATE INDEX "workflows_team_idx" ON "workflows" USING btree ("team_id","type");