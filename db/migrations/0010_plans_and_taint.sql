CREATE TABLE "model_usage" (
	"user_id" uuid NOT NULL,
	"day" text NOT NULL,
	"tokens" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "model_usage_user_id_day_pk" PRIMARY KEY("user_id","day")
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "tainted" jsonb;--> statement-breakpoint
ALTER TABLE "model_usage" ADD CONSTRAINT "model_usage_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;