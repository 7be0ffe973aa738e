-- uie-verifierd schema version 2 (docs/VERIFIER.md 2.2): re-keying and
-- retention.  keyed_at: when the machine's current AK was set (enrolment
-- or PUT .../ak), from which silence counts until its first accepted post.
ALTER TABLE machines ADD COLUMN keyed_at timestamptz;
UPDATE machines SET keyed_at = enrolled_at;
ALTER TABLE machines ALTER COLUMN keyed_at SET NOT NULL, ALTER COLUMN keyed_at SET DEFAULT now();
-- --keep-verdicts deletes by age and keeps the verdicts machines name as first_bad.
CREATE INDEX verdicts_at ON verdicts (at);
CREATE INDEX machines_first_bad ON machines (first_bad);
