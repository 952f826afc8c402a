CREATE TABLE "notes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"title" text NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tool_calls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"run_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"step" integer NOT NULL,
	"position" integer NOT NULL,
	"tool_use_id" text NOT NULL,
	"model_name" text NOT NULL,
	"server_id" text,
	"server_name" text,
	"tool" text,
	"input" jsonb NOT NULL,
	"args_hash" text NOT NULL,
	"status" text DEFAULT 'proposed' NOT NULL,
	"policy" jsonb,
	"trust" text,
	"annotations" jsonb,
	"input_schema" jsonb,
	"output_schema" jsonb,
	"decision" jsonb,
	"result" jsonb,
	"is_error" boolean,
	"full_text" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"input_requests" jsonb,
	"request_state" text,
	"version" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "notes" ADD CONSTRAINT "notes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD CONSTRAINT "tool_calls_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD CONSTRAINT "tool_calls_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD CONSTRAINT "tool_calls_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notes_user_idx" ON "notes" USING btree ("user_id","updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "tool_calls_run_use_idx" ON "tool_calls" USING btree ("run_id","tool_use_id");--> statement-breakpoint
CREATE INDEX "tool_calls_run_step_idx" ON "tool_calls" USING btree ("run_id","step","position");--> statement-breakpoint
CREATE INDEX "tool_calls_user_idx" ON "tool_calls" USING btree ("user_id","created_at");