CREATE TABLE "delegation_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" integer NOT NULL,
	"workspace_platform" text NOT NULL,
	"domain" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"key_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD COLUMN "delegation_credential_id" text;--> statement-breakpoint
ALTER TABLE "delegation_credentials" ADD CONSTRAINT "delegation_credentials_organization_id_teams_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "delegation_credentials_org_platform_domain_idx" ON "delegation_credentials" USING btree ("organization_id","workspace_platform","domain");--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD CONSTRAINT "calendar_connections_delegation_credential_id_delegation_credentials_id_fk" FOREIGN KEY ("delegation_credential_id") REFERENCES "public"."delegation_credentials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_connections_delegation_user_idx" ON "calendar_connections" USING btree ("delegation_credential_id","user_id") WHERE "calendar_connections"."delegation_credential_id" is not null;