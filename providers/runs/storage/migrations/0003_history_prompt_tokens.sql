-- The tokens a message costs in a history prompt, measured when it is
-- appended, so that building a history adds up stored numbers instead of
-- tokenizing again:
--
-- body_tokens are the tokens of the content as the history formatter writes
-- it when it keeps it whole (without blank lines, carriage returns and
-- trailing spaces), and encoding names the tokenizer that measured tokens
-- and body_tokens. Both are NULL for older messages, and a message measured
-- with another tokenizer than the one in use is measured again from its
-- content.
ALTER TABLE messages ADD COLUMN body_tokens INTEGER CHECK (body_tokens IS NULL OR body_tokens >= 0);
ALTER TABLE messages ADD COLUMN encoding TEXT;

DROP INDEX messages_meta;
CREATE INDEX messages_meta ON messages (conversation_id, id, tokens, lines, body_tokens, encoding, role, mode, command, run_id, created_at);
