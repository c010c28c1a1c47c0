package assign

// SetMinRepairBudget sets the least work budget of a repair and returns a
// function that restores it.
func SetMinRepairBudget(n int) (restore func()) {
	old := minRepairBudget
	minRepairBudget = n
	return func() { minRepairBudget = old }
}

// UseReferenceRepair makes the general plan run the reference repair (the
// one-search-per-step algorithm the repair must match) and returns a
// function that restores the repair.
func UseReferenceRepair() (restore func()) {
	repairPlan = refRebalance
	return func() { repairPlan = rebalance }
}
