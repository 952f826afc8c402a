CREATE TABLE "history_summaries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"conversation_id" uuid NOT NULL,
	"through_seq" integer NOT NULL,
	"text" text NOT NULL,
	"run_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "origin" jsonb;--> statement-breakpoint
ALTER TABLE "history_summaries" ADD CONSTRAINT "history_summaries_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "history_summaries_conversation_idx" ON "history_summaries" USING btree ("conversation_id","through_seq");