-- Who wrote a comment, as the spam rule and the owner's replies need it (docs/api.md, "Comments"):
-- author_id is the fediverse author's actor id, or a Webmention's author URL (its source's host
-- when it names none); a comment whose author has one marked spam lands as spam. in_reply_to is,
-- on the owner's reply (a Note sent to the fediverse), the id of the comment it answers.
ALTER TABLE comments ADD COLUMN author_id TEXT NOT NULL DEFAULT '';
ALTER TABLE comments ADD COLUMN in_reply_to TEXT NOT NULL DEFAULT '';
CREATE INDEX comments_author ON comments (author_id, status);
