ALTER TABLE "mcp_servers" ADD COLUMN "trust_content" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "content_trusted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Results stored before content trust existed: only the first-party servers' (notes, sandbox) and the host's own
-- tools' content was ever ours to believe. Every other server's result taints, as it would now.
UPDATE "tool_calls" SET "content_trusted" = true WHERE "server_id" IN ('builtin-notes', 'builtin-sandbox', 'host');
