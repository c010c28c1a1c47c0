package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Watch loads the policy file at path and keeps serving it as it changes.
// The first load must succeed: assignd refuses to start on a bad policy
// rather than serving something else than the operator wrote.
//
// It watches the file's directory, not the file, because editors and
// Kubernetes replace files by renaming a new one over them (a ConfigMap
// volume swaps a "..data" symlink), which a watch on the file itself would
// not survive. After a change it waits for the directory to be quiet for
// the debounce interval (WithDebounce), reads the file, and if its content
// is new parses and validates it completely before swapping it in
// atomically. A file that cannot be read or is invalid (a half-written
// file, a typo) is logged at ERROR with every problem, counted in
// assignd.policy.reload.failures and flagged by
// assignd.policy.reload.rejected, and the last good revision keeps
// serving; the same bad content is reported only once. The file is also
// re-read every WithResync interval in case a notification was missed.
//
// Watching stops when ctx is done or Close is called.
func Watch(ctx context.Context, path string, opts ...Option) (*Source, error) {
	cfg := newConfig(opts)
	// Watch first, then read: a change in between is then an event, not
	// a revision missed until the next resync.
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching policy %s: %w", path, err)
	}
	if err := w.Add(filepath.Dir(path)); err != nil {
		w.Close()
		return nil, fmt.Errorf("watching policy %s: %w", path, err)
	}
	p, err := Load(path)
	if err != nil {
		w.Close()
		return nil, err
	}
	fw := &fileWatch{path: path, w: w, quit: make(chan struct{}), done: make(chan struct{})}
	s, err := newSource(p, cfg, fw)
	if err != nil {
		w.Close()
		return nil, err
	}
	go fw.loop(ctx)
	return s, nil
}

// Reload re-reads the watched file now, as a change notification would
// (e.g. on SIGHUP), and returns why it was rejected, or nil when the file is
// being served (new or unchanged). It is an error on a Source not made by
// Watch.
func (s *Source) Reload(ctx context.Context) error {
	if s.watch == nil {
		return fmt.Errorf("policy: Reload: the source does not watch a file")
	}
	return s.watch.reload(ctx, "manual")
}

// fileWatch is the watching half of a Source made by Watch.
type fileWatch struct {
	src  *Source
	path string
	w    *fsnotify.Watcher

	// mu serialises reloads (the loop's and Reload's).
	mu sync.Mutex
	// lastBad is the digest of the last rejected content, or the text of
	// the last read error, so that a bad file is reported once, not at
	// every event or resync.
	lastBad  string
	rejected atomic.Bool

	quit     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

func (fw *fileWatch) stop() {
	fw.stopOnce.Do(func() { close(fw.quit) })
	<-fw.done
}

func (fw *fileWatch) loop(ctx context.Context) {
	defer close(fw.done)
	defer fw.w.Close()
	// Since Go 1.23 a stopped or reset timer delivers no stale tick, so
	// one timer, reset by every event, is the whole debouncer.
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()
	var resync <-chan time.Time
	if d := fw.src.cfg.resync; d > 0 {
		t := time.NewTicker(d)
		defer t.Stop()
		resync = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-fw.quit:
			return
		case ev, ok := <-fw.w.Events:
			if !ok {
				return
			}
			if !fw.relevant(ev) {
				continue
			}
			debounce.Reset(fw.src.cfg.debounce)
		case err, ok := <-fw.w.Errors:
			if !ok {
				return
			}
			// Usually an event queue overflow: events were lost, so look.
			fw.src.cfg.logger.WarnContext(ctx, "policy watch error; re-reading the file", "file", fw.path, "error", err)
			_ = fw.reload(ctx, "watch error")
		case <-debounce.C:
			_ = fw.reload(ctx, "change")
		case <-resync:
			_ = fw.reload(ctx, "resync")
		}
	}
}

// relevant keeps events about the policy file itself and about the
// "..data"-style entries through which Kubernetes swaps ConfigMap files.
func (fw *fileWatch) relevant(ev fsnotify.Event) bool {
	name := filepath.Base(ev.Name)
	return name == filepath.Base(fw.path) || strings.HasPrefix(name, "..")
}

// reload reads, validates and swaps in the file if its content is new.
func (fw *fileWatch) reload(ctx context.Context, trigger string) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	log := fw.src.cfg.logger
	cur := fw.src.cur.Load()

	data, err := readFile(fw.path)
	if err != nil {
		fw.reject(ctx, "read:"+err.Error(), "read", cur, trigger, err)
		return err
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:6])
	if digest == cur.Revision() {
		fw.lastBad = ""
		fw.rejected.Store(false)
		return nil
	}
	p, err := Parse(fw.path, data)
	if err != nil {
		fw.reject(ctx, digest, "invalid", cur, trigger, err)
		return err
	}
	fw.src.cur.Store(p)
	fw.lastBad = ""
	fw.rejected.Store(false)
	fw.src.m.reloads.Add(ctx, 1, metric.WithAttributes(attribute.String("revision", p.Revision())))
	log.InfoContext(ctx, "policy reloaded", "file", fw.path, "trigger", trigger,
		"previous_revision", cur.Revision(), "revision", p.Revision(), "rules", strings.Join(p.RuleNames(), ","))
	return nil
}

// reject records a file that cannot be served: once per distinct failure.
func (fw *fileWatch) reject(ctx context.Context, key, reason string, cur *Policy, trigger string, err error) {
	fw.rejected.Store(true)
	if key == fw.lastBad {
		return
	}
	fw.lastBad = key
	fw.src.cfg.logger.LogAttrs(ctx, slog.LevelError, "policy file rejected; the last good revision keeps serving",
		slog.String("file", fw.path), slog.String("trigger", trigger), slog.String("reason", reason),
		slog.String("serving_revision", cur.Revision()), slog.String("error", err.Error()))
	// Count after logging: whoever sees the counter move finds the log line.
	fw.src.m.reloadFailures.Add(ctx, 1, metric.WithAttributes(attribute.String("reason", reason)))
}
