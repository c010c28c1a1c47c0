// Package versioned is the closed registry of versioned assignors that
// every family of assignors (assign, assign/share, assign/task) keeps, so
// that an older version stays runnable and a rollback is a policy edit.
package versioned
