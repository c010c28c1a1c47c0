package assign

// SetMinRepairBudget sets the least work budget of a repair and returns a
// function that restores it.
func SetMinRepairBudget(n int) (restore func()) {
	old := minRepairBudget
	minRepairBudget = n
	return func() { minRepairBudget = old }
}

// SetRepairWorkPerUnit sets the repair's work budget per unit of input and
// returns a function that restores it.
func SetRepairWorkPerUnit(n int) (restore func()) {
	old := repairWorkPerUnit
	repairWorkPerUnit = n
	return func() { repairWorkPerUnit = old }
}

// UseReferenceRepair makes the general plan run the reference repair (the
// one-search-per-step algorithm the repair must match) and returns a
// function that restores the repair.
func UseReferenceRepair() (restore func()) {
	repairPlan = refRepair
	return func() { repairPlan = repair }
}

// WithoutRackTally makes rack-aware picks do without the rack tally (as in
// groups with too many racks for one) and returns a function that restores
// it.
func WithoutRackTally() (restore func()) {
	useRackTally = false
	return func() { useRackTally = true }
}

// SetPollHook makes every poll of a run's context (see WithContext) call
// hook with the run's phase before the context is read, so that a test can
// end the context at a chosen poll. It returns a function that removes it.
func SetPollHook(hook func(phase string)) (restore func()) {
	old := pollHook
	pollHook = hook
	return func() { pollHook = old }
}

// CutShortWarning is the warning of a best-effort run whose refinements a
// stop skipped.
const CutShortWarning = cutShortWarning

// SetLookaheadRounds sets how many follow-ups lookahead plays ahead (0:
// none) and returns a function that restores it.
func SetLookaheadRounds(n int) (restore func()) {
	old := lookaheadRounds
	lookaheadRounds = n
	return func() { lookaheadRounds = old }
}
