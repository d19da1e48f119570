CREATE TABLE "login_failures" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_key" text NOT NULL,
	"client_ip" text NOT NULL,
	"failed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "login_failures_account_key_failed_at_idx" ON "login_failures" USING btree ("account_key","failed_at");--> statement-breakpoint
CREATE INDEX "login_failures_client_ip_failed_at_idx" ON "login_failures" USING btree ("client_ip","failed_at");--> statement-breakpoint
CREATE INDEX "login_failures_failed_at_idx" ON "login_failures" USING btree ("failed_at");