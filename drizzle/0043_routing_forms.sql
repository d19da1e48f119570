CREATE TABLE "routing_form_responses" (
	"id" serial PRIMARY KEY NOT NULL,
	"form_id" text NOT NULL,
	"form_filler_id" text DEFAULT gen_random_uuid()::text NOT NULL,
	"response" jsonb NOT NULL,
	"route_id" text,
	"event_type_id" integer,
	"team_member_ids" integer[],
	"routed_to_booking_uid" text,
	"no_event_webhook_ids" integer[] DEFAULT '{}'::int[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "routing_forms" (
	"id" text PRIMARY KEY DEFAULT gen_random_uuid()::text NOT NULL,
	"team_id" integer NOT NULL,
	"organization_id" integer NOT NULL,
	"user_id" integer,
	"name" text NOT NULL,
	"description" text,
	"position" integer DEFAULT 0 NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"fields" jsonb NOT NULL,
	"routes" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "routing_form_responses" ADD CONSTRAINT "routing_form_responses_form_id_routing_forms_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."routing_forms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "routing_forms" ADD CONSTRAINT "routing_forms_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "routing_forms" ADD CONSTRAINT "routing_forms_organization_id_teams_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "routing_forms" ADD CONSTRAINT "routing_forms_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "routing_form_responses_form_idx" ON "routing_form_responses" USING btree ("form_id","created_at");--> statement-breakpoint
CREATE INDEX "routing_form_responses_booking_idx" ON "routing_form_responses" USING btree ("routed_to_booking_uid");--> statement-breakpoint
CREATE INDEX "routing_forms_team_idx" ON "routing_forms" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "routing_forms_organization_idx" ON "routing_forms" USING btree ("organization_id");