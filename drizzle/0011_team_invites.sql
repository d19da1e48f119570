CREATE TABLE "team_invite_tokens" (
	"id" serial PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"hashed_token" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "team_invite_tokens" ADD CONSTRAINT "team_invite_tokens_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "team_invite_tokens_hashed_token_key" ON "team_invite_tokens" USING btree ("hashed_token");--> statement-breakpoint
CREATE INDEX "team_invite_tokens_team_id_idx" ON "team_invite_tokens" USING btree ("team_id");