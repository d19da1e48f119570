CREATE TABLE "delegation_member_failures" (
	"credential_id" text NOT NULL,
	"user_id" integer NOT NULL,
	"failing_since" timestamp with time zone NOT NULL,
	"failure" text NOT NULL,
	"retry_at" timestamp with time zone NOT NULL,
	CONSTRAINT "delegation_member_failures_credential_id_user_id_pk" PRIMARY KEY("credential_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "delegation_member_failures" ADD CONSTRAINT "delegation_member_failures_credential_id_delegation_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."delegation_credentials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delegation_member_failures" ADD CONSTRAINT "delegation_member_failures_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;