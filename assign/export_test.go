package assign

// SetMinRepairBudget sets the least work budget of a repair and returns a
// function that restores it.
func SetMinRepairBudget(n int) (restore func()) {
	old := minRepairBudget
	minRepairBudget = n
	return func() { minRepairBudget = old }
}
