package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestBookingStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		bookingtest.TestStore(t, func(t *testing.T) booking.Store {
			if db.Dialect == sqldb.SQLite {
				return foliotest.MustOpenSQLite(t).Bookings
			}
			return foliotest.MustOpenPostgres(t).Bookings
		})
	})
}

func TestBookingStoreForTheLocalCalendar(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		bookingtest.TestCalendarStore(t, func(t *testing.T) bookingtest.CalendarStore { return db.Bookings })
	})
}
