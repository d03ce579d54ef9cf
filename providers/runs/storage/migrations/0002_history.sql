-- Conversation history: what the history builder needs to select messages
-- from metadata alone, and counters for listing conversations.
--
-- lines is the number of non-blank lines of the content (NULL for messages
-- written before this migration): with it the builder knows, without reading
-- the content, which messages the formatter will shorten.
ALTER TABLE messages ADD COLUMN lines INTEGER CHECK (lines IS NULL OR lines >= 0);

-- Selecting the newest messages that fit a token budget walks this index
-- backwards and never touches the content pages.
DROP INDEX messages_conversation;
CREATE INDEX messages_meta ON messages (conversation_id, id, tokens, lines, role, mode, command, run_id, created_at);

-- Per-conversation counters, kept by the trigger below; messages are never
-- deleted one by one (only with their conversation), so inserts are all
-- the trigger follows.
ALTER TABLE conversations ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN last_at INTEGER;

UPDATE conversations SET
    message_count = (SELECT count(*) FROM messages m WHERE m.conversation_id = conversations.conversation_id),
    tokens = (SELECT coalesce(sum(tokens), 0) FROM messages m WHERE m.conversation_id = conversations.conversation_id),
    last_at = (SELECT max(created_at) FROM messages m WHERE m.conversation_id = conversations.conversation_id);

CREATE TRIGGER messages_summary_insert AFTER INSERT ON messages
BEGIN
    UPDATE conversations SET
        message_count = message_count + 1,
        tokens = tokens + NEW.tokens,
        last_at = max(coalesce(last_at, 0), NEW.created_at)
    WHERE conversation_id = NEW.conversation_id;
END;
