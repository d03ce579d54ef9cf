-- When a command's first attempt started. A retry moves started_at to the
-- start of the new attempt (the attempt before goes to command_attempts),
-- so the first start is kept here; rows from before this column take the
-- earliest start their attempts recorded.
ALTER TABLE commands ADD COLUMN first_started_at INTEGER;

UPDATE commands SET first_started_at = coalesce(
    (SELECT min(a.started_at) FROM command_attempts a WHERE a.command_id = commands.id),
    started_at);
