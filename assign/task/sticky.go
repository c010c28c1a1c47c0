package task

// NameSticky is the sticky task assignor's name, the name of the broker's
// built-in (group.streams.assignors=sticky).
const NameSticky = "sticky"

// Sticky returns the sticky task assignor ("sticky"@1): actives first,
// then warm-ups, then standbys, by the rules of the package documentation.
func Sticky() Assignor { return stickyV1{} }

type stickyV1 struct{}

func (stickyV1) Name() string    { return NameSticky }
func (stickyV1) Version() int    { return 1 }
func (stickyV1) plan(p *planner) { p.placeActives(); p.holdForWarmups(); p.placeStandbys() }
