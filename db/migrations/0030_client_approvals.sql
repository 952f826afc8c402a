CREATE TABLE "client_approvals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"client_kind" text NOT NULL,
	"client_id" text NOT NULL,
	"client_name" text NOT NULL,
	"name" text NOT NULL,
	"server_id" text NOT NULL,
	"server_name" text NOT NULL,
	"tool" text NOT NULL,
	"trust" text NOT NULL,
	"annotations" jsonb NOT NULL,
	"input" jsonb NOT NULL,
	"args_hash" text NOT NULL,
	"reason" text NOT NULL,
	"warnings" jsonb NOT NULL,
	"status" text DEFAULT 'pending_approval' NOT NULL,
	"decision" jsonb,
	"decided_via" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"ran_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "client_approvals" ADD CONSTRAINT "client_approvals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "client_approvals_pending_idx" ON "client_approvals" USING btree ("user_id","created_at") WHERE status = 'pending_approval';