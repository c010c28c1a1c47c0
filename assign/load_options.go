package assign

import "math"

// loadOptions are the knobs of the load-aware assignors ([LoadSticky]);
// the other assignors ignore them.
type loadOptions struct {
	tolerance  float64 // fraction over the lower bound a member may carry
	hysteresis float64 // fraction of the lower bound beyond the tolerance before anything moves
	countSkew  int     // partitions a member may hold over the even share; 0: the even share
}

// The defaults of [WithLoadTolerance] and [WithLoadHysteresis].
const (
	DefaultLoadTolerance  = 0.10
	DefaultLoadHysteresis = 0.05
)

func defaultLoadOptions() loadOptions {
	return loadOptions{tolerance: DefaultLoadTolerance, hysteresis: DefaultLoadHysteresis}
}

// WithLoadTolerance sets how far above the lower bound of the largest
// member load a load-aware plan may stay: 0.10 accepts any plan whose
// most loaded member carries at most 10% more than the bound (the mean
// member load, the heaviest partition, or the load of topics only a few
// members subscribe to, shared among them). A larger tolerance moves
// fewer partitions. Negative, NaN and infinite values select the default.
// Default: [DefaultLoadTolerance], 0.10.
func WithLoadTolerance(f float64) Option {
	return optionFunc(func(o *options) { o.load.tolerance = orDefault(f, DefaultLoadTolerance) })
}

// WithLoadHysteresis sets how far beyond the tolerance, as a fraction of
// the lower bound, the most loaded member must be before a load-aware
// assignor moves anything: load that drifts by less never moves a
// partition, so noise in the rates causes no churn; once moving, the plan
// is brought back within the tolerance. Negative, NaN and infinite values
// select the default. Default: [DefaultLoadHysteresis], 0.05.
func WithLoadHysteresis(f float64) Option {
	return optionFunc(func(o *options) { o.load.hysteresis = orDefault(f, DefaultLoadHysteresis) })
}

// WithMaxCountSkew caps how many partitions a member may hold beyond the
// even share (the partition total divided by the member count, rounded
// up), so that a member is never handed hundreds of idle partitions to
// make up for a busy one. Members that alone subscribe to a topic hold
// what only they can. 0 or less selects the default. Default: the even
// share itself, so that no member holds more than twice its share.
func WithMaxCountSkew(n int) Option {
	return optionFunc(func(o *options) { o.load.countSkew = max(n, 0) })
}

func orDefault(f, def float64) float64 {
	if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return def
	}
	return f
}
