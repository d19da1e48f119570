CREATE TABLE "out_of_office_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"uuid" text NOT NULL,
	"user_id" integer NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"notes" text,
	"reason" text DEFAULT 'unspecified' NOT NULL,
	"to_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "out_of_office_entries_uuid_unique" UNIQUE("uuid"),
	CONSTRAINT "out_of_office_entries_order_check" CHECK ("out_of_office_entries"."end_at" > "out_of_office_entries"."start_at")
);
--> statement-breakpoint
ALTER TABLE "out_of_office_entries" ADD CONSTRAINT "out_of_office_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "out_of_office_entries" ADD CONSTRAINT "out_of_office_entries_to_user_id_users_id_fk" FOREIGN KEY ("to_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "out_of_office_entries_user_end_idx" ON "out_of_office_entries" USING btree ("user_id","end_at");--> statement-breakpoint
CREATE INDEX "out_of_office_entries_to_user_idx" ON "out_of_office_entries" USING btree ("to_user_id");