CREATE TABLE "mail_budgets" (
	"key" text NOT NULL,
	"window_ends_at" timestamp with time zone NOT NULL,
	"messages" integer NOT NULL,
	CONSTRAINT "mail_budgets_key_window_ends_at_pk" PRIMARY KEY("key","window_ends_at")
);
