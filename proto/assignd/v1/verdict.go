package assigndv1

// Urgency orders migration verdicts for an operator's reading: blocked
// groups first (0), then those to watch (1), then the ready ones and any
// verdict this version does not know (2). The console and assignctl list
// a MigrationReport in this order.
func (v MigrationVerdict) Urgency() int {
	switch v {
	case MigrationVerdict_MIGRATION_VERDICT_BLOCKED:
		return 0
	case MigrationVerdict_MIGRATION_VERDICT_CAUTION:
		return 1
	}
	return 2
}
