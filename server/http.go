package server

import (
	"net/http"

	"github.com/assignd/assignd/server/history/console"
)

// OpsHandler serves the operations endpoints beside the gRPC port:
//
//	/metrics  metrics, when metrics is not nil (see Telemetry.MetricsHandler)
//	/healthz  200 while the process runs (liveness)
//	/readyz   200 while the server serves and is not shutting down, else 503
//	          (readiness; it turns 503 as soon as Shutdown starts)
//	/console/ the read-only group observatory console, when the server
//	          keeps a history (WithHistory; see package [console]). It shows
//	          group, member and caller ids: the listener is loopback by
//	          default, and whoever reaches it sees them.
//	          /console/migration is the KIP-848 migration report
//	          (?prefix=), as assignctl migrate-report prints it.
func (s *Server) OpsHandler(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	if s.history != nil {
		var opts []console.Option
		if s.explainer != nil {
			opts = append(opts, console.WithExplainer(s.explainer))
		}
		if s.rollouts != nil {
			opts = append(opts, console.WithRollouts(s.rollouts.Status))
		}
		mux.Handle("GET /console/", http.StripPrefix("/console", console.Handler(s.history, opts...)))
		mux.HandleFunc("GET /console/migration", s.replay.MigrationPage)
	}
	if metrics != nil {
		mux.Handle("GET /metrics", metrics)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !s.Ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	return mux
}
