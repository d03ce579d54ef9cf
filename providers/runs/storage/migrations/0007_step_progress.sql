-- When a command's first attempt started. A retry moves started_at to the
-- start of the new attempt (the attempt before goes to command_attempts),
-- so the first start is kept here; rows from before this column take the
-- earliest start their attempts recorded.
ALTER TABLE commands ADD COLUMN first_started_at INTEGER;

UPDATE commands SET first_started_at = coalesce(
    (SELECT min(a.started_at) FROM command_attempts a WHERE a.command_id = commands.id),
    started_at);

-- What a list of executions shows of their latest step and of the steps
-- that fully succeeded, kept on the executions row by triggers as the
-- counters of 0001 are, so that a list reads no commands: the number of
-- steps whose latest attempt is success, the status of the latest step,
-- and the input (its first 200 characters) the latest step was given.
ALTER TABLE executions ADD COLUMN steps_succeeded INTEGER NOT NULL DEFAULT 0;
ALTER TABLE executions ADD COLUMN last_status TEXT NOT NULL DEFAULT '';
ALTER TABLE executions ADD COLUMN last_input TEXT NOT NULL DEFAULT '';

UPDATE executions SET
    steps_succeeded = (SELECT count(*) FROM commands c WHERE c.session_id = executions.session_id AND c.status = 'success'),
    last_status = coalesce((SELECT c.status FROM commands c WHERE c.session_id = executions.session_id
        ORDER BY c.step DESC LIMIT 1), ''),
    last_input = coalesce((SELECT CASE WHEN json_valid(c.inputs) AND json_type(c.inputs, '$.input') = 'text'
            THEN substr(json_extract(c.inputs, '$.input'), 1, 200) ELSE '' END
        FROM commands c WHERE c.session_id = executions.session_id ORDER BY c.step DESC LIMIT 1), '');

-- A new step is the latest: steps are numbered one after the other.
CREATE TRIGGER commands_progress_insert AFTER INSERT ON commands
BEGIN
    UPDATE executions SET
        steps_succeeded = steps_succeeded + (NEW.status = 'success'),
        last_status = NEW.status,
        last_input = CASE WHEN json_valid(NEW.inputs) AND json_type(NEW.inputs, '$.input') = 'text'
            THEN substr(json_extract(NEW.inputs, '$.input'), 1, 200) ELSE '' END
    WHERE session_id = NEW.session_id;
END;

-- The latest step is the one numbered steps - 1 (the insert trigger of
-- 0001 has counted it).
CREATE TRIGGER commands_progress_status AFTER UPDATE OF status ON commands
WHEN OLD.status <> NEW.status
BEGIN
    UPDATE executions SET
        steps_succeeded = steps_succeeded + (NEW.status = 'success') - (OLD.status = 'success'),
        last_status = CASE WHEN NEW.step = steps - 1 THEN NEW.status ELSE last_status END
    WHERE session_id = NEW.session_id;
END;

-- A retry gives the step new inputs.
CREATE TRIGGER commands_progress_inputs AFTER UPDATE OF inputs ON commands
BEGIN
    UPDATE executions SET
        last_input = CASE WHEN json_valid(NEW.inputs) AND json_type(NEW.inputs, '$.input') = 'text'
            THEN substr(json_extract(NEW.inputs, '$.input'), 1, 200) ELSE '' END
    WHERE session_id = NEW.session_id AND NEW.step = steps - 1;
END;
