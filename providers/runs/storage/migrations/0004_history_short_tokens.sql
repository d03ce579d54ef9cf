-- short_tokens are the tokens of a long message's body as the history
-- formatter writes it with its default limits (more than 20 lines keep the
-- first 10 and the last 10): with them, building a history under the default
-- formatter tokenizes nothing. NULL for messages of 20 lines or fewer, and
-- for older messages.
ALTER TABLE messages ADD COLUMN short_tokens INTEGER CHECK (short_tokens IS NULL OR short_tokens >= 0);

DROP INDEX messages_meta;
CREATE INDEX messages_meta ON messages (conversation_id, id, tokens, lines, body_tokens, short_tokens, encoding,
    role, mode, command, run_id, created_at);
