package store

import "testing"

// TestDSNSets: a pool size set in the DSN, as a URL's query or a
// key=value pair, is told apart from one that is not, or that only a
// password or another parameter spells.
func TestDSNSets(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		want bool
	}{
		{"postgres://u@h/db?pool_max_conns=9", true},
		{"postgresql://u@h/db?sslmode=disable&pool_max_conns=9", true},
		{"postgres://u@h/db?sslmode=disable", false},
		{"postgres://u:pool_max_conns@h/db", false},
		{"postgres://u@h/db?application_name=pool_max_conns", false},
		{"host=h dbname=db pool_max_conns=9", true},
		{"host=h dbname=db password=pool_max_conns", false},
	} {
		if got := dsnSets(c.dsn, "pool_max_conns"); got != c.want {
			t.Errorf("dsnSets(%q) = %v, want %v", c.dsn, got, c.want)
		}
	}
}
