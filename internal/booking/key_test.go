package booking

import "testing"

func FuzzValidKey(f *testing.F) {
	for _, s := range []string{"", "3f1c-key", "a b", "ü", "k\r\nX-Evil: 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if validKey(key) != nil {
			return
		}
		if len(key) > MaxIdempotencyKeyLen {
			t.Fatalf("accepted a %d-byte key", len(key))
		}
		for i := 0; i < len(key); i++ {
			if key[i] <= ' ' || key[i] > '~' {
				t.Fatalf("accepted %q", key)
			}
		}
	})
}
