package replay

import (
	"html/template"
	"net/http"
	"slices"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history/console"
)

// migrationTemplate is the console's KIP-848 migration page: the report's
// first page (at most maxPage groups), rendered on the server like
// the rest of the console (no JavaScript, no external asset).
var migrationTemplate = console.Page("migration", template.FuncMap{"verdict": verdictLabel}, `{{template "head" "KIP-848 migration"}}
<h1>KIP-848 migration report</h1>
<p>For each group: what moves when it switches to the consumer protocol (the broker imports today's assignment as the previous one), balance and per-topic skew after against today, rack locality lost, and a verdict. {{.Shown}} of {{.Total}} groups{{if .Prefix}} starting with <code>{{.Prefix}}</code>{{end}}.</p>
<table>
<tr><th>Group</th><th>Protocol</th><th>Today</th><th>Server-side</th><th>Moved</th><th>Imbalance</th><th>Topic skew</th><th>Rack lost</th><th>User data</th><th>Verdict</th><th>Reason</th></tr>
{{range .Groups}}<tr><td><a href="group?id={{.GetGroupId}}">{{.GetGroupId}}</a></td><td>{{.GetProtocolName}}</td><td>{{.GetCurrentAssignor}}</td><td>{{.GetServerAssignor}}</td>
{{if .GetAfter}}<td class="n">{{.GetMovedAtSwitch}}</td><td class="n">{{.GetToday.GetImbalance}} → {{.GetAfter.GetImbalance}}</td><td class="n">{{.GetToday.GetWorstTopicSkew}} → {{.GetAfter.GetWorstTopicSkew}}</td><td class="n">{{.GetRackLocalityLost}}</td>{{else}}<td></td><td></td><td></td><td></td>{{end}}
<td>{{if .GetUserData}}yes{{else}}no{{end}}</td><td class="{{verdict .GetVerdict}}">{{verdict .GetVerdict}}</td><td>{{.GetReason}}</td></tr>
{{end}}</table>
{{template "foot"}}`)

func verdictLabel(v assigndv1.MigrationVerdict) string {
	switch v {
	case assigndv1.MigrationVerdict_MIGRATION_VERDICT_READY:
		return "ready"
	case assigndv1.MigrationVerdict_MIGRATION_VERDICT_CAUTION:
		return "caution"
	case assigndv1.MigrationVerdict_MIGRATION_VERDICT_BLOCKED:
		return "blocked"
	}
	return "unknown"
}

type migrationPageData struct {
	Groups       []*assigndv1.GroupMigration
	Shown, Total int
	Prefix       string
}

// MigrationPage serves /console/migration?prefix=P.
func (r *Service) MigrationPage(w http.ResponseWriter, req *http.Request) {
	prefix := req.URL.Query().Get("prefix")
	resp, err := r.MigrationReport(req.Context(), &assigndv1.MigrationReportRequest{GroupIdPrefix: prefix, PageSize: maxPage})
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	// Blocked first, then caution, then ready, as assignctl lists them.
	slices.SortStableFunc(resp.Groups, func(a, b *assigndv1.GroupMigration) int {
		return a.GetVerdict().Urgency() - b.GetVerdict().Urgency()
	})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	data := migrationPageData{Groups: resp.GetGroups(), Shown: len(resp.GetGroups()), Total: int(resp.GetTotalGroups()), Prefix: prefix}
	if err := migrationTemplate.Execute(w, data); err != nil {
		// The header is written: nothing more can be said to the client.
		return
	}
}
