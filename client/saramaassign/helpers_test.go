package saramaassign_test

// fataler is what helpers need of *testing.T and *rapid.T alike.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}
