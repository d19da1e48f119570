CREATE TABLE "payments" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"account_id" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"checkout_session_id" text NOT NULL,
	"checkout_url" text,
	"payment_intent_id" text,
	"hold_until" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone,
	"refund_id" text,
	"refunded_amount" integer,
	"refunded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payments_status_check" CHECK ("payments"."status" in ('awaiting', 'paid', 'expired', 'cancelled', 'refunding', 'refunded'))
);
--> statement-breakpoint
CREATE TABLE "stripe_accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer,
	"team_id" integer,
	"account_id" text NOT NULL,
	"credentials_sealed" text NOT NULL,
	"default_currency" text,
	"livemode" boolean DEFAULT false NOT NULL,
	"invalid" boolean DEFAULT false NOT NULL,
	"connected_by_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stripe_accounts_one_owner_check" CHECK (("stripe_accounts"."user_id" is null) <> ("stripe_accounts"."team_id" is null))
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"account" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "price" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "currency" text DEFAULT 'usd' NOT NULL;--> statement-breakpoint
ALTER TABLE "event_types" ADD COLUMN "refund_policy" jsonb;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "payment_id" integer;--> statement-breakpoint
ALTER TABLE "stripe_accounts" ADD CONSTRAINT "stripe_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stripe_accounts" ADD CONSTRAINT "stripe_accounts_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stripe_accounts" ADD CONSTRAINT "stripe_accounts_connected_by_user_id_users_id_fk" FOREIGN KEY ("connected_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_uid_key" ON "payments" USING btree ("uid");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_checkout_session_id_key" ON "payments" USING btree ("checkout_session_id");--> statement-breakpoint
CREATE UNIQUE INDEX "stripe_accounts_user_id_key" ON "stripe_accounts" USING btree ("user_id") WHERE "stripe_accounts"."user_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "stripe_accounts_team_id_key" ON "stripe_accounts" USING btree ("team_id") WHERE "stripe_accounts"."team_id" is not null;--> statement-breakpoint
CREATE INDEX "stripe_accounts_account_id_idx" ON "stripe_accounts" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "stripe_events_received_at_idx" ON "stripe_events" USING btree ("received_at");--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bookings_payment_id_idx" ON "bookings" USING btree ("payment_id") WHERE "bookings"."payment_id" is not null;