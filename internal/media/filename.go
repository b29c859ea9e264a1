package media

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/foliohq/folio"
)

// MaxFilenameBytes is the longest original file name kept (the usual file-system limit).
const MaxFilenameBytes = 255

// CleanFilename checks an uploader's original file name and returns it with surrounding spaces
// trimmed. The name is only kept as metadata and shown back (objects are stored under their
// content hash), but a name that tries to be a path is a sign of a broken or hostile client, so
// it is refused rather than silently cut down: anything with '/', '\\' or ':' (directories,
// Windows drives, NTFS streams), "." or "..", NUL, control or invisible formatting characters
// (such as right-to-left overrides that disguise an extension), invalid UTF-8, or more than
// 255 bytes is a 400 VALIDATION_ERROR on field "file". The empty name is allowed: ("", nil).
func CleanFilename(raw string) (string, error) {
	bad := func(why string) error { return folio.BadRequest("file", "The file name %s.", why) }
	if !utf8.ValidString(raw) {
		return "", bad("is not valid UTF-8")
	}
	for _, r := range raw {
		switch {
		case r == '/' || r == '\\' || r == ':':
			return "", bad("must be a plain name, without directories, drive letters or ':'")
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError:
			return "", bad("contains control or invisible formatting characters")
		}
	}
	name := strings.TrimSpace(raw)
	if name != "" && strings.Trim(name, ". ") == "" {
		return "", bad("must not be only dots")
	}
	if len(name) > MaxFilenameBytes {
		return "", bad("is longer than 255 bytes")
	}
	return name, nil
}
