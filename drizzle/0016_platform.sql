CREATE TABLE "platform_managed_users" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform_oauth_clients" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" integer NOT NULL,
	"name" text NOT NULL,
	"secret_hash" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"permissions" text[] NOT NULL,
	"logo" text,
	"redirect_uris" text[] DEFAULT '{}'::text[] NOT NULL,
	"booking_redirect_uri" text,
	"booking_cancel_redirect_uri" text,
	"booking_reschedule_redirect_uri" text,
	"are_emails_enabled" boolean DEFAULT false NOT NULL,
	"are_default_event_types_enabled" boolean DEFAULT false NOT NULL,
	"are_calendar_events_enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform_refresh_tokens" (
	"id" serial PRIMARY KEY NOT NULL,
	"hashed_token" text NOT NULL,
	"user_id" integer NOT NULL,
	"client_id" text NOT NULL,
	"family_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"rotated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "access_tokens" ADD COLUMN "family_id" text;--> statement-breakpoint
ALTER TABLE "platform_managed_users" ADD CONSTRAINT "platform_managed_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_managed_users" ADD CONSTRAINT "platform_managed_users_client_id_platform_oauth_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."platform_oauth_clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_oauth_clients" ADD CONSTRAINT "platform_oauth_clients_organization_id_teams_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_refresh_tokens" ADD CONSTRAINT "platform_refresh_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_refresh_tokens" ADD CONSTRAINT "platform_refresh_tokens_client_id_platform_oauth_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."platform_oauth_clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "platform_managed_users_client_id_idx" ON "platform_managed_users" USING btree ("client_id","user_id");--> statement-breakpoint
CREATE INDEX "platform_oauth_clients_organization_id_idx" ON "platform_oauth_clients" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "platform_refresh_tokens_hashed_token_key" ON "platform_refresh_tokens" USING btree ("hashed_token");--> statement-breakpoint
CREATE INDEX "platform_refresh_tokens_family_id_idx" ON "platform_refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "platform_refresh_tokens_client_id_user_id_idx" ON "platform_refresh_tokens" USING btree ("client_id","user_id");--> statement-breakpoint
CREATE INDEX "access_tokens_client_id_user_id_idx" ON "access_tokens" USING btree ("client_id","user_id");--> statement-breakpoint
CREATE INDEX "access_tokens_family_id_idx" ON "access_tokens" USING btree ("family_id");