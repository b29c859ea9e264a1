-- Meeting places, booking questions and per-type rules (CONTRACT §15; docs/api.md, "Meeting places").
-- A type's locations and questions are JSON lists; a booking keeps the place it was made with
-- (JSON {kind, value, visitorPhone}; '' for none: the provider's own video link) and the
-- visitor's answers with each question's label at booking time.
ALTER TABLE meeting_types ADD COLUMN locations TEXT NOT NULL DEFAULT '[]';
ALTER TABLE meeting_types ADD COLUMN questions TEXT NOT NULL DEFAULT '[]';
ALTER TABLE meeting_types ADD COLUMN limit_week INTEGER NOT NULL DEFAULT 0;
ALTER TABLE meeting_types ADD COLUMN limit_month INTEGER NOT NULL DEFAULT 0;
ALTER TABLE meeting_types ADD COLUMN min_notice_minutes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE bookings ADD COLUMN place TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings ADD COLUMN answers TEXT NOT NULL DEFAULT '[]';
