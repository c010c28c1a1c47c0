package policy

// WithRunFunc replaces assign.Run for shadow evaluation, so that tests can
// make shadows slow, fail or panic.
var WithRunFunc = withRunFunc
