package consoletest

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/testbed/contains"
	"github.com/assignd/assignd/testbed/shimtest"
)

// screenshotsEnv names a directory to keep the browser's screenshots in;
// without it they go to the test's temporary directory, which go test
// removes.
const screenshotsEnv = "ASSIGND_SCREENSHOTS"

// browse serves the console of the fleet's history from a real assignd
// server's HTTP handler (the one --metrics-listen serves) and loads the
// fleet page and the group pages in headless Chromium, asserting what the
// DOM shows against the history. The pages have no script (and their
// Content-Security-Policy allows none), so what the DOM shows is what the
// server rendered. (Chromium's --dump-dom needs JavaScript on, so it
// stays on.)
func browse(t *testing.T, f fleet) {
	chromium := findChromium(t)
	srv, err := server.New(f.policy, shimtest.Quiet, server.WithHistory(f.history), server.WithExplainer(f.policy))
	if err != nil {
		t.Fatal(err)
	}
	ops := httptest.NewServer(srv.OpsHandler(nil))
	defer ops.Close()
	shots := os.Getenv(screenshotsEnv)
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	fleetDOM := chromium.load(t, ops.URL+"/console/", filepath.Join(shots, "fleet.png"))
	checkFleetPage(t, f, fleetDOM)
	for _, g := range []string{steadyGroup, flapGroup, crashGroup} {
		dom := chromium.load(t, ops.URL+"/console/group?id="+url.QueryEscape(g), filepath.Join(shots, "group-"+g+".png"))
		checkGroupPage(t, f, g, dom)
	}
	t.Logf("screenshots in %s", shots)
}

// browser runs one Chromium binary headless.
type browser struct{ path string }

// findChromium finds Debian's chromium. Outside CI a missing browser
// skips the test; under CI=true it fails, since scripts/test.sh installs
// it.
func findChromium(t *testing.T) browser {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return browser{p}
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; scripts/test.sh installs Debian's chromium package (APT_PACKAGES)")
	}
	t.Skip("chromium is not installed (Debian: apt-get install chromium); under CI=true this test fails instead")
	return browser{}
}

// load opens url with a fresh profile, saves a screenshot to png and
// returns the page's DOM as Chromium built it.
func (b browser) load(t *testing.T, url, png string) *html.Node {
	t.Helper()
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--window-size=1600,1500"}
	run := func(extra ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		args := append(append(append([]string(nil), flags...), "--user-data-dir="+t.TempDir()), extra...)
		cmd := exec.CommandContext(ctx, b.path, append(args, url)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", b.path, strings.Join(extra, " "), err, stderr.String())
		}
		return stdout.Bytes()
	}
	out := run("--dump-dom")
	run("--screenshot=" + png)
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("no screenshot of %s: %v", url, err)
	}
	if bytes.Contains(out, []byte("<script")) {
		t.Errorf("%s has a script", url)
	}
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func checkFleetPage(t *testing.T, f fleet, doc *html.Node) {
	if got := text(byID(doc, "count")); !strings.HasPrefix(got, "3 shown of 3 groups remembered") {
		t.Errorf("fleet page count: %q", got)
	}
	firing := text(byID(doc, "firing"))
	contains.All(t, "the fleet page's signals firing", firing, "rebalance-storm: 1", "generation-gap: 1")
	rows := map[string]*html.Node{}
	walk(byID(doc, "groups"), func(n *html.Node) {
		if g := attr(n, "data-group"); n.Data == "tr" && g != "" {
			rows[g] = n
		}
	})
	for _, g := range []struct{ id, signals string }{
		{steadyGroup, "none"}, {flapGroup, "rebalance-storm"}, {crashGroup, "generation-gap"},
	} {
		row := rows[g.id]
		if row == nil {
			t.Errorf("fleet page: no row for %s (rows %v)", g.id, keys(rows))
			continue
		}
		sum, _, _ := f.history.Get(g.id, 0)
		for class, want := range map[string]int32{"members": sum.GetMemberCount(), "partitions": sum.GetPartitions(), "rebalances": sum.GetRebalancesLastHour()} {
			if got := text(byClass(row, class)); got != strconv.Itoa(int(want)) {
				t.Errorf("fleet page, %s: %s %q, want %d", g.id, class, got, want)
			}
		}
		if got := text(byClass(row, "signals")); got != g.signals {
			t.Errorf("fleet page, %s: signals %q, want %q", g.id, got, g.signals)
		}
	}
}

func checkGroupPage(t *testing.T, f fleet, id string, doc *html.Node) {
	sum, ds, _ := f.history.Get(id, 0)
	if got := text(firstTag(doc, "h1")); got != "Group "+id {
		t.Errorf("%s page: heading %q", id, got)
	}
	signals := text(byID(doc, "signals"))
	for _, s := range sum.GetSignals() {
		if !strings.Contains(signals, s.GetReason()) {
			t.Errorf("%s page: signals %q lack %q", id, signals, s.GetReason())
		}
	}
	switch id {
	case flapGroup:
		if !strings.Contains(signals, `member "flappy" joined 3 times`) {
			t.Errorf("%s page: signals %q do not name the flapping member", id, signals)
		}
	case crashGroup:
		if !strings.Contains(signals, "never reached assignd") {
			t.Errorf("%s page: signals %q do not show the fallback's generation gap", id, signals)
		}
	case steadyGroup:
		if !strings.Contains(signals, "none") {
			t.Errorf("%s page: signals %q; want none", id, signals)
		}
	}
	// One bar per decision kept, and a mark where generations are
	// missing: only the group whose leader fell back has one.
	bars, gaps := 0, 0
	walk(byID(doc, "timeline"), func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "g" {
			switch attr(n, "class") {
			case "bar":
				bars++
			case "gap":
				gaps++
			}
		}
	})
	if bars != len(ds) {
		t.Errorf("%s page: %d timeline bars, %d decisions kept", id, bars, len(ds))
	}
	if wantGaps := map[string]int{crashGroup: 1}[id]; gaps != wantGaps {
		t.Errorf("%s page: %d generation gaps marked on the timeline, want %d", id, gaps, wantGaps)
	}
	// The heatmap covers every partition of the latest assignment.
	total := 0
	walk(byID(doc, "heatmap"), func(n *html.Node) {
		if n.Data == "td" && strings.Contains(attr(n, "class"), "heat") {
			v, err := strconv.Atoi(text(n))
			if err != nil {
				t.Errorf("%s page: heatmap cell %q", id, text(n))
			}
			total += v
		}
	})
	if total != int(sum.GetPartitions()) {
		t.Errorf("%s page: heatmap cells sum to %d, want the %d partitions assigned", id, total, sum.GetPartitions())
	}
	// The decisions, newest first, with why partitions moved.
	var gens []string
	var why strings.Builder
	walk(byID(doc, "decisions"), func(n *html.Node) {
		if n.Data != "tr" || firstTag(n, "td") == nil {
			return
		}
		var cells []*html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Data == "td" {
				cells = append(cells, c)
			}
		}
		gens = append(gens, text(cells[1]))
		why.WriteString(text(cells[len(cells)-1]) + "\n")
	})
	var want []string
	revoked, reasons := 0, 0
	for _, d := range ds {
		want = append(want, strconv.Itoa(int(d.GetGenerationId())))
		revoked += len(d.GetRevokedPartitions())
		reasons += len(d.GetMoveReasons())
	}
	if id == steadyGroup && reasons == 0 {
		t.Errorf("%s: no decision recorded a move reason", id)
	}
	if strings.Join(gens, ",") != strings.Join(want, ",") {
		t.Errorf("%s page: decisions of generations %v, want %v", id, gens, want)
	}
	if revoked > 0 && !strings.Contains(why.String(), "revoked ") {
		t.Errorf("%s page: %d decisions revoked partitions, the page says no reason:\n%s", id, revoked, why.String())
	}
	// Each decision's moves by reason, as the record counts them.
	for _, d := range ds {
		for _, r := range d.GetMoveReasons() {
			want := fmt.Sprintf("%s %d", strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(r.GetReason().String(), "MOVE_REASON_")), "_", " "), r.GetPartitions())
			if !strings.Contains(why.String(), want) {
				t.Errorf("%s page: generation %d moved %s, the page does not say so:\n%s", id, d.GetGenerationId(), want, why.String())
			}
		}
	}
	// The policy: the rule recorded, serving now, and the shadow.
	policy := text(byID(doc, "policy"))
	contains.All(t, id+" page: policy", policy, "rule default", "Serving now", "shadow cooperative-sticky@2")
	if runs := f.history.Shadows(id, 1); len(runs) > 0 {
		if got := text(byID(doc, "shadow")); !strings.Contains(got, fmt.Sprintf("Shadow comparison, generation %d", runs[0].GetGenerationId())) ||
			!strings.Contains(got, "shadow ("+runs[0].GetTime().AsTime().UTC().Format(time.RFC3339)+") cooperative-sticky@2") {
			t.Errorf("%s page: shadow %q, want the run of generation %d", id, got, runs[0].GetGenerationId())
		}
	} else {
		t.Errorf("%s: no shadow run recorded", id)
	}
}

// DOM helpers.

func walk(n *html.Node, f func(*html.Node)) {
	if n == nil {
		return
	}
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	var found *html.Node
	walk(n, func(c *html.Node) {
		if found == nil && c.Type == html.ElementNode && match(c) {
			found = c
		}
	})
	return found
}

func byID(n *html.Node, id string) *html.Node {
	return find(n, func(c *html.Node) bool { return attr(c, "id") == id })
}

func byClass(n *html.Node, class string) *html.Node {
	return find(n, func(c *html.Node) bool { return strings.Contains(" "+attr(c, "class")+" ", " "+class+" ") })
}

func firstTag(n *html.Node, tag string) *html.Node {
	return find(n, func(c *html.Node) bool { return c.Data == tag })
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text is the node's text, whitespace collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			b.WriteByte(' ')
		}
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

func keys(m map[string]*html.Node) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
