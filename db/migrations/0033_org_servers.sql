CREATE TABLE "org_servers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"namespace" text NOT NULL,
	"url" text NOT NULL,
	"auth" text NOT NULL,
	"headers_sealed" text,
	"required" boolean DEFAULT false NOT NULL,
	"trust" text DEFAULT 'untrusted' NOT NULL,
	"timeout_ms" integer DEFAULT 60000 NOT NULL,
	"reviewed_tools" jsonb DEFAULT '{"v":1,"tools":{}}'::jsonb NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "org_server_id" uuid;--> statement-breakpoint
ALTER TABLE "org_servers" ADD CONSTRAINT "org_servers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_servers" ADD CONSTRAINT "org_servers_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "org_servers_namespace_idx" ON "org_servers" USING btree ("org_id","namespace");--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_org_server_id_org_servers_id_fk" FOREIGN KEY ("org_server_id") REFERENCES "public"."org_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_servers_user_org_server_idx" ON "mcp_servers" USING btree ("user_id","org_server_id");