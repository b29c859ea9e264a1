package outboxtest

import "testing"

func TestMemStore(t *testing.T) {
	t.Parallel()
	TestStore(t, func(*testing.T) Store { return NewMemStore() })
}
