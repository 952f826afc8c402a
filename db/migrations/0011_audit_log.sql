CREATE TABLE "audit_chain_heads" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"last_seq" bigint DEFAULT 0 NOT NULL,
	"last_hmac" text,
	"last_at" timestamp with time zone,
	"pruned_through_seq" bigint DEFAULT 0 NOT NULL,
	"anchor_hmac" text,
	"anchor_mac" text
);
--> statement-breakpoint
CREATE TABLE "audit_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"seq" bigint NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"conversation_id" uuid,
	"tool_call_id" uuid,
	"server_id" text,
	"tool" text,
	"outcome" text,
	"content" jsonb NOT NULL,
	"key_id" text NOT NULL,
	"prev_hmac" text NOT NULL,
	"hmac" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_chain_heads" ADD CONSTRAINT "audit_chain_heads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_entries_user_seq_idx" ON "audit_entries" USING btree ("user_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "audit_entries_tool_call_idx" ON "audit_entries" USING btree ("tool_call_id") WHERE tool_call_id is not null;--> statement-breakpoint
CREATE INDEX "audit_entries_at_idx" ON "audit_entries" USING btree ("at");