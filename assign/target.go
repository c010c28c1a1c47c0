package assign

// WithTarget makes the run return a target assignment, as a KIP-848 group
// coordinator asks its server-side assignor for one: the plan goes out
// whole, and the KIP-429 post-pass does not run, whatever the protocol.
// Under KIP-848 the broker reconciles a move itself: it takes a partition
// from its old owner (member epochs) before the new owner gets it, so
// withholding here would only delay the move by a heartbeat round that the
// broker never asks for. Result.Pending is then always empty,
// FollowupRequired false, and Revoked still lists what each member owned
// and no longer targets (the broker's revocations). A run cut short keeps
// its warning and withholds nothing. Members' Owned is the broker's
// current assignment, which is what keeps the sticky assignors sticky.
// Default: off (a classic leader's round).
func WithTarget(on bool) Option { return optionFunc(func(o *options) { o.target = on }) }
