// Package console serves the group observatory's read-only web console: a
// fleet table of the groups a replica remembers and a page per group with
// its signals, members, decisions and a timeline. Pages are rendered on the
// server from embedded templates: no JavaScript, no external asset, so it
// works air-gapped and in any browser.
//
// It shows group ids, member ids, client software and caller identities:
// serve it only where those may be seen (assignd mounts it on the HTTP
// listener, loopback by default).
package console

import (
	"context"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/selection"
)

//go:embed templates/*.html
var files embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"protocol": func(p assigndv1.RebalanceProtocol) string {
		return strings.TrimPrefix(p.String(), "REBALANCE_PROTOCOL_")
	},
	"signal":   signalName,
	"streams":  func(t assigndv1.GroupType) bool { return t == assigndv1.GroupType_GROUP_TYPE_STREAMS },
	"ago":      func(t time.Time) string { return time.Since(t).Round(time.Second).String() },
	"stamp":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"clock":    func(t time.Time) string { return t.UTC().Format("15:04:05") },
	"groupURL": func(id string) string { return "group?id=" + url.QueryEscape(id) },
	"stepOf": func(r *assigndv1.RolloutRuleState) string {
		return fmt.Sprintf("%d of %d", min(r.GetStep(), r.GetSteps()-1)+1, r.GetSteps())
	},
	"inc":   func(n int32) int32 { return n + 1 },
	"extra": func(d *assigndv1.Decision) []field { return extraFields(d, decisionShown) },
	"caller": func(c *assigndv1.CallerIdentity) string {
		if c == nil {
			return "unauthenticated"
		}
		return c.GetSubject()
	},
	"tps": func(tps []*assigndv1.TopicPartitions) string {
		var parts []string
		for _, tp := range tps {
			ps := make([]string, len(tp.GetPartitions()))
			for i, p := range tp.GetPartitions() {
				ps[i] = fmt.Sprint(p)
			}
			parts = append(parts, tp.GetTopic()+"["+strings.Join(ps, ",")+"]")
		}
		return strings.Join(parts, " ")
	},
	"reasons": reasonCounts,
	"run":     func(incarnation uint64) string { return fmt.Sprintf("%x", incarnation) },
	"moves":   partitionMoves,
}).ParseFS(files, "templates/*.html"))

// Page is a console page served by another package (the replay service's
// migration report, say) in the console's layout: name's template, text,
// calls {{template "head" "Title"}} and {{template "foot"}} around its
// body and may call funcs.
func Page(name string, funcs template.FuncMap, text string) *template.Template {
	layout := template.Must(template.New(name).Funcs(funcs).ParseFS(files, "templates/layout.html"))
	return template.Must(layout.Parse(text))
}

// reasonName is a MoveReason as the console writes it: "no owner",
// "balance", "stale claim".
func reasonName(r assigndv1.MoveReason) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(r.String(), "MOVE_REASON_")), "_", " ")
}

// reasonCounts writes a Decision's counts by reason: "balance 3, no owner 2".
func reasonCounts(rs []*assigndv1.MoveReasonCount) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s %d", reasonName(r.GetReason()), r.GetPartitions())
	}
	return strings.Join(parts, ", ")
}

// shownMoves is how many of a Decision's moves a row lists.
const shownMoves = 8

// partitionMoves writes a Decision's first moves: "orders[3] a→withheld
// (balance)".
func partitionMoves(ms []*assigndv1.PartitionMove) string {
	var parts []string
	for _, m := range ms[:min(len(ms), shownMoves)] {
		from, to := m.GetFromMemberId(), m.GetToMemberId()
		if from == "" {
			from = "nobody"
		}
		if to == "" {
			to = "withheld"
		}
		parts = append(parts, fmt.Sprintf("%s[%d] %s→%s (%s)", m.GetTopic(), m.GetPartition(), from, to, reasonName(m.GetReason())))
	}
	if len(ms) > shownMoves {
		parts = append(parts, "…")
	}
	return strings.Join(parts, ", ")
}

// Handler serves the console of h; mount it under a prefix with
// http.StripPrefix, e.g. "/console". Routes: "/" the fleet table
// (filters: ?prefix=, ?signal=), "/group?id=GROUP" one group.
func Handler(h *history.Store, opts ...Option) http.Handler {
	var cfg config
	for _, o := range opts {
		o.apply(&cfg)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { fleet(w, r, h, cfg) })
	mux.HandleFunc("GET /group", func(w http.ResponseWriter, r *http.Request) { group(w, r, h, cfg) })
	return mux
}

// fleetPage is the data of fleet.html.
type fleetPage struct {
	Groups         []*assigndv1.GroupSummary
	Total, Shown   int
	Prefix, Signal string
	Signals        []string
	More           bool
	// Firing counts the groups where each signal holds, fleet-wide.
	Firing []signalCount
	// Gapped are the replica runs that reported records they could not
	// share through the history topic, as ListGroups returns them; the
	// section is left out when there are none.
	Gapped []*assigndv1.HistoryReplica
	// Rollouts are the serving policy's staged rollouts (WithRollouts);
	// the section is left out when there are none.
	Rollouts []*assigndv1.RolloutRuleState
}

// gapped keeps the runs that dropped records: a run that shared all of
// its records has nothing for an operator to look at.
func gapped(rs []*assigndv1.HistoryReplica) []*assigndv1.HistoryReplica {
	var out []*assigndv1.HistoryReplica
	for _, r := range rs {
		if r.GetDropped() > 0 || len(r.GetGaps()) > 0 {
			out = append(out, r)
		}
	}
	return out
}

type signalCount struct {
	Signal string
	Groups int
}

func fleet(w http.ResponseWriter, r *http.Request, h *history.Store, cfg config) {
	q := history.Query{Prefix: r.URL.Query().Get("prefix"), PageSize: history.MaxPageSize}
	sig := r.URL.Query().Get("signal")
	if sig != "" {
		s, ok := parseSignal(sig)
		if !ok {
			http.Error(w, fmt.Sprintf("unknown signal %q", sig), http.StatusBadRequest)
			return
		}
		q.Signal = s
	}
	p, _ := h.List(q) // no page token: no error
	page := fleetPage{
		Groups: p.Groups, Total: p.Total, Shown: len(p.Groups), Prefix: q.Prefix, Signal: sig, Signals: signalNames(), More: p.Next != "",
	}
	counts, _ := h.SignalCounts()
	for v := int32(1); ; v++ {
		if _, ok := assigndv1.GroupSignal_name[v]; !ok {
			break
		}
		if n := counts[assigndv1.GroupSignal(v)]; n > 0 {
			page.Firing = append(page.Firing, signalCount{Signal: signalName(assigndv1.GroupSignal(v)), Groups: n})
		}
	}
	// The same list ListGroups returns (GroupHistoryService), so that
	// the console and assignctl agree.
	page.Gapped = gapped(h.Replicas())
	if cfg.rollouts != nil {
		page.Rollouts = cfg.rollouts().GetRules()
	}
	render(w, "fleet.html", page)
}

// groupPage is the data of group.html.
type groupPage struct {
	Summary    *assigndv1.GroupSummary
	Latest     *assigndv1.Decision
	Decisions  []*assigndv1.Decision
	Timeline   timeline
	Heatmap    heatmap
	HasHeatmap bool
	// Explained is what the serving policy does for the group now; nil
	// without an Explainer. ExplainError says why it could not tell.
	Explained    *selection.Explanation
	ExplainError string
	// Shadow compares the latest shadow run with the decision it
	// shadowed; nil when the group has no shadow run kept.
	Shadow *shadowComparison
}

// shadowComparison is the latest shadow run of a group beside the
// decision of the same generation (Primary nil when that decision is no
// longer kept).
type shadowComparison struct {
	Generation      int32
	Primary, Shadow *assigndv1.Decision
}

func compareShadow(h *history.Store, id string, decisions []*assigndv1.Decision) *shadowComparison {
	runs := h.Shadows(id, 1)
	if len(runs) == 0 {
		return nil
	}
	c := &shadowComparison{Generation: runs[0].GetGenerationId(), Shadow: runs[0]}
	for _, d := range decisions {
		if d.GetGenerationId() == c.Generation {
			c.Primary = d
			break
		}
	}
	return c
}

func group(w http.ResponseWriter, r *http.Request, h *history.Store, cfg config) {
	id := r.URL.Query().Get("id")
	sum, ds, ok := h.Get(id, 0)
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		render(w, "notfound.html", id)
		return
	}
	page := groupPage{Summary: sum, Latest: ds[0], Decisions: ds, Timeline: newTimeline(ds), Shadow: compareShadow(h, id, ds)}
	page.Heatmap, page.HasHeatmap = newHeatmap(ds[0])
	if cfg.explainer != nil {
		page.Explained, page.ExplainError = explain(r.Context(), cfg.explainer, ds[0])
	}
	render(w, "group.html", page)
}

// explain asks what the policy does now for the group of d, as its latest
// caller would.
func explain(ctx context.Context, e selection.Explainer, d *assigndv1.Decision) (*selection.Explanation, string) {
	q := selection.Query{GroupID: d.GetGroupId(), ProtocolName: d.GetProtocolName()}
	if d.GetGroupType() == assigndv1.GroupType_GROUP_TYPE_STREAMS {
		q.GroupType = selection.GroupStreams
	}
	if c := d.GetCaller(); c != nil {
		q.Caller = selection.Caller{Subject: c.GetSubject(), CommonName: c.GetCommonName()}
	}
	ex, err := e.ExplainPolicy(ctx, q)
	if err != nil {
		return nil, err.Error()
	}
	return &ex, ""
}

func render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// No script runs on these pages, and nothing loads from elsewhere.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:")
	if err := pages.ExecuteTemplate(w, name, data); err != nil {
		http.Error(w, "rendering the page failed", http.StatusInternalServerError)
	}
}

func signalName(s assigndv1.GroupSignal) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(s.String(), "GROUP_SIGNAL_")), "_", "-")
}

func signalNames() []string {
	var out []string
	for v := int32(1); ; v++ {
		if _, ok := assigndv1.GroupSignal_name[v]; !ok {
			return out
		}
		out = append(out, signalName(assigndv1.GroupSignal(v)))
	}
}

func parseSignal(name string) (assigndv1.GroupSignal, bool) {
	for v := range assigndv1.GroupSignal_name {
		if s := assigndv1.GroupSignal(v); v != 0 && signalName(s) == name {
			return s, true
		}
	}
	return 0, false
}
