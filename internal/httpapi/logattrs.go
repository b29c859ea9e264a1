package httpapi

import "log/slog"

// levelFor picks the access-log level of a response status.
func levelFor(status int) slog.Level {
	switch {
	case status >= 500:
		return slog.LevelError
	case status >= 400:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// logMethod is the request method as the access log shows it: a method is any token of the
// client's choosing, so an unusual one is cut to 16 bytes to keep log lines small.
func logMethod(m string) string {
	if len(m) > 16 {
		return m[:16] + "…"
	}
	return m
}
