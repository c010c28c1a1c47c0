package share

// NameSticky is the sticky share assignor's name.
const NameSticky = "sticky"

// Sticky returns the sticky share assignor ("sticky"@1): every topic's
// slots spread over its subscribers by the rules of the package
// documentation.
func Sticky() Assignor { return stickyV1{} }

type stickyV1 struct{}

func (stickyV1) Name() string    { return NameSticky }
func (stickyV1) Version() int    { return 1 }
func (stickyV1) plan(p *planner) { p.planTopics() }
