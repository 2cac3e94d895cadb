package store

// File returns the database file of a SQLite store, and "" for any other
// store (PostgreSQL, or a store of another package): what sits beside the
// database, such as the dashboard's session key file, is named from it.
func File(st Store) string {
	s, ok := st.(*sqlStore)
	if !ok {
		return ""
	}
	if e, ok := s.eng.(*sqliteEngine); ok {
		return e.path
	}
	return ""
}
