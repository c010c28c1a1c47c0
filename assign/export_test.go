package assign

// SetMinRepairBudget sets the least work budget of a repair and returns a
// function that restores it.
func SetMinRepairBudget(n int) (restore func()) {
	old := minRepairBudget
	minRepairBudget = n
	return func() { minRepairBudget = old }
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
