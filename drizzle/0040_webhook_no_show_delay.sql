ALTER TABLE "webhooks" ADD COLUMN "time" integer;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "time_unit" text;