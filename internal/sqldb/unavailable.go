package sqldb

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err means the database could not be reached or used right now
// (connection refused or lost, a locked SQLite file past its busy timeout), as opposed to a bug
// or bad data. The HTTP layer answers such errors 503 so clients and load balancers retry.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var connectErr *pgconn.ConnectError
	var opErr *net.OpError
	if errors.As(err, &connectErr) || errors.As(err, &opErr) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"conn closed", "sql: database is closed", "failed to receive message", "unexpected EOF", "database is locked", "SQLITE_BUSY", "the database system is starting up", "the database system is shutting down"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
