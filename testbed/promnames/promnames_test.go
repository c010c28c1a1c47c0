package promnames

import (
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`up`, []string{"up"}},
		{`assignd_assign_errors_total{code="Unavailable", reason=~"ERROR_REASON_.*"}`, []string{"assignd_assign_errors_total"}},
		{`rate(assignd_assign_moved_total[5m])`, []string{"assignd_assign_moved_total"}},
		{`histogram_quantile(0.99, sum by (le, assignor) (rate(assignd_assign_duration_seconds_bucket[$__rate_interval])))`,
			[]string{"assignd_assign_duration_seconds_bucket"}},
		{`sum(rate(a_total[5m])) by (reason) / ignoring(reason) group_left sum(rate(b_total[5m]))`, []string{"a_total", "b_total"}},
		{`x * on(job, instance) group_left(version) build_info`, []string{"build_info", "x"}},
		{`a and on() b or c unless d`, []string{"a", "b", "c", "d"}},
		{`sum without (instance) (m1) > bool 0.5e-3`, []string{"m1"}},
		{`increase(m2[1h:5m] offset 1d) > 0x1f`, []string{"m2"}},
		{`max(m3 offset 6h) - max(m3) @ start()`, []string{"m3"}},
		{`{__name__="by_name", job="x"} + {__name__=~"regex.*"}`, []string{"by_name"}},
		{`label_replace(m4, "dst", "$1", "src", "(.*)")`, []string{"m4"}},
		{`count_values("version", m5{version!~'1\'.*'})`, []string{"m5"}},
		{"m6{a=`raw\"`} # a comment naming not_a_metric\n + m7", []string{"m6", "m7"}},
		{`topk(5, sum by (rule) (rate(m8[${__range}]))) or vector(0)`, []string{"m8"}},
		{`m9 > Inf or m10 < -inf or NaN != m11`, []string{"m10", "m11", "m9"}},
		{`rate(m12[[[interval]]])`, []string{"m12"}},
		{`sum by(le)(m13) / 1e3`, []string{"m13"}},
		{`absent_over_time(m14[10m]) == 1 and on() (time() - m15 > 3600)`, []string{"m14", "m15"}},
		{`a:recorded:rate5m`, []string{"a:recorded:rate5m"}},
		{`1 + 2`, []string{}},
	} {
		got, err := Names(tc.expr)
		if err != nil {
			t.Errorf("Names(%q): %v", tc.expr, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Names(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

func TestNamesRejectsWhatIsNotPromQL(t *testing.T) {
	for _, expr := range []string{
		`rate(x[5m]`,
		`x{a="b"`,
		`x{a="b)`,
		`sum(x))`,
		`x{a}`,
		`x[5m`,
		`x ; y`,
		`$ + 1`,
		`x{a="b` + "\n" + `"}`,
	} {
		if got, err := Names(expr); err == nil {
			t.Errorf("Names(%q) = %q, want an error", expr, got)
		}
	}
}
