ALTER TABLE "users" ADD COLUMN "tools_rev" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Anything that can change which tools a user's turns may offer or call bumps users.tools_rev,
-- in the same transaction: an engine that read the same value may reuse what it read then, and
-- a change no writer remembered to announce cannot exist.
CREATE FUNCTION "bump_tools_rev"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "users" SET "tools_rev" = "tools_rev" + 1 WHERE "id" = OLD."user_id";
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW."user_id" IS DISTINCT FROM OLD."user_id") THEN
    UPDATE "users" SET "tools_rev" = "tools_rev" + 1 WHERE "id" = NEW."user_id";
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "mcp_servers_tools_rev" AFTER INSERT OR UPDATE OR DELETE ON "mcp_servers" FOR EACH ROW EXECUTE FUNCTION "bump_tools_rev"();--> statement-breakpoint
CREATE TRIGGER "tool_grants_tools_rev" AFTER INSERT OR UPDATE OR DELETE ON "tool_grants" FOR EACH ROW EXECUTE FUNCTION "bump_tools_rev"();--> statement-breakpoint
CREATE TRIGGER "tool_switches_tools_rev" AFTER INSERT OR UPDATE OR DELETE ON "tool_switches" FOR EACH ROW EXECUTE FUNCTION "bump_tools_rev"();--> statement-breakpoint
-- A session's grants end with it; its last-seen time is not a change.
CREATE TRIGGER "auth_sessions_tools_rev" AFTER UPDATE OF "ended_at", "expires_at" OR DELETE ON "auth_sessions" FOR EACH ROW EXECUTE FUNCTION "bump_tools_rev"();
