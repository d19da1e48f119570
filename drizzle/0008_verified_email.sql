ALTER TABLE "users" ADD COLUMN "verified_email" text;--> statement-breakpoint
-- Every existing user was created by an admin with this address: it is their verified one.
UPDATE "users" SET "verified_email" = "email";--> statement-breakpoint
CREATE UNIQUE INDEX "users_verified_email_lower_key" ON "users" USING btree (lower("verified_email"));
