package book

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// browser finds a headless-capable Chromium on PATH.
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// cdp is a minimal Chrome DevTools Protocol client over
// --remote-debugging-pipe: Chromium reads NUL-terminated JSON commands on
// its fd 3 and writes replies and events on its fd 4. No websocket, no
// dependency.
type cdp struct {
	cmd    *exec.Cmd
	in     *os.File // our end of its fd 3
	msgs   chan map[string]any
	next   int
	events []map[string]any // every event seen, in order
}

func startBrowser(ctx context.Context, t *testing.T, bin string) *cdp {
	t.Helper()
	toR, toW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// The profile is not in t.TempDir: Chromium's helper processes may still
	// write there for a moment after it closes, and TempDir's cleanup fails
	// the test on a directory that is not empty.
	profile, err := os.MkdirTemp("", "locksim-book-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir="+profile, "--remote-debugging-pipe")
	cmd.ExtraFiles = []*os.File{toR, fromW} // its fd 3 and fd 4
	if err := cmd.Start(); err != nil {
		fmt.Printf("TestSiteInChromium skipped: %s could not start: %v\n", bin, err)
		t.Skipf("%s could not start: %v", bin, err)
	}
	toR.Close()
	fromW.Close()
	c := &cdp{cmd: cmd, in: toW, msgs: make(chan map[string]any, 256)}
	go func() {
		r := bufio.NewReader(fromR)
		for {
			b, err := r.ReadBytes(0)
			if err != nil {
				close(c.msgs)
				return
			}
			var m map[string]any
			if json.Unmarshal(b[:len(b)-1], &m) == nil {
				c.msgs <- m
			}
		}
	}()
	t.Cleanup(func() {
		// Ask it to close; kill it (the process this test started) if it
		// has not within 10 s.
		b, _ := json.Marshal(map[string]any{"id": 1 << 30, "method": "Browser.close"})
		toW.Write(append(b, 0))
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		toW.Close()
		for range 20 { // its helpers may outlive it by a moment
			if os.RemoveAll(profile) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return c
}

// call sends a command and waits for its reply, keeping the events that
// arrive meanwhile.
func (c *cdp) call(t *testing.T, session, method string, params map[string]any) map[string]any {
	t.Helper()
	c.next++
	msg := map[string]any{"id": c.next, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, _ := json.Marshal(msg)
	if _, err := c.in.Write(append(b, 0)); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for {
		m := c.read(t, method)
		if id, ok := m["id"].(float64); ok && int(id) == c.next {
			if e, ok := m["error"]; ok {
				t.Fatalf("%s: %v", method, e)
			}
			res, _ := m["result"].(map[string]any)
			return res
		}
	}
}

// waitFor reads events until one of the method arrives for the session.
func (c *cdp) waitFor(t *testing.T, session, method string) {
	t.Helper()
	for {
		m := c.read(t, method)
		if m["method"] == method && m["sessionId"] == session {
			return
		}
	}
}

// settle keeps reading events for d: what a page's scripts do after load.
func (c *cdp) settle(d time.Duration) {
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return
			}
			if _, isEvent := m["method"]; isEvent {
				c.events = append(c.events, m)
			}
		case <-deadline:
			return
		}
	}
}

func (c *cdp) read(t *testing.T, waiting string) map[string]any {
	t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			t.Fatalf("the browser closed its pipe while waiting for %s", waiting)
		}
		if _, isEvent := m["method"]; isEvent {
			c.events = append(c.events, m)
		}
		return m
	case <-time.After(60 * time.Second):
		t.Fatalf("no %s from the browser in 60 s", waiting)
	}
	return nil
}

// TestSiteInChromium loads the index and two scenario pages of a rendered
// site in headless Chromium and checks that no request leaves the site's
// directory, that nothing is logged as an error, and that every link in
// the rendered DOM resolves to a file of the site.
func TestSiteInChromium(t *testing.T) {
	bin := browser()
	if bin == "" {
		fmt.Println("TestSiteInChromium skipped: no chromium, chromium-browser or google-chrome on PATH")
		t.Skip("no chromium, chromium-browser or google-chrome on PATH")
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	dir := t.TempDir()
	writeSite(t, dir, render(t, testBook(t)))
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := startBrowser(ctx, t, bin)

	for _, page := range []string{"index.html", "scenarios/del-race.html", "scenarios/crash-deadlock.html"} {
		t.Run(page, func(t *testing.T) {
			for _, p := range c.load(t, root, page) {
				t.Error(p)
			}
		})
	}

	// The checks catch what they look for: a page that fetches from the
	// network, logs an error, throws, and links to a missing file.
	bad := filepath.Join(root, "bad.html")
	if err := os.WriteFile(bad, []byte(`<!DOCTYPE html><title>bad</title><img src="http://192.0.2.1/x.png">`+
		`<script>console.error("boom"); null.x;</script><a href="index.html">i</a><a href="a.html">a</a><a href="missing.html">m</a>`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.load(t, root, "bad.html"), "\n")
	t.Logf("what the checks say of a bad page:\n%s", got)
	for _, want := range []string{"a request leaves the site: http://192.0.2.1/x.png", "console.error", "exception", "missing.html resolves to no file"} {
		if !strings.Contains(got, want) {
			t.Errorf("a bad page passes: no %q in\n%s", want, got)
		}
	}
}

// load opens a page of the site in a new tab and says what is wrong with
// it: requests outside root, errors logged or thrown, links to no file.
func (c *cdp) load(t *testing.T, root, page string) []string {
	t.Helper()
	var problems []string
	target := c.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	defer c.call(t, "", "Target.closeTarget", map[string]any{"targetId": target["targetId"]})
	attached := c.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target["targetId"], "flatten": true})
	session, _ := attached["sessionId"].(string)
	for _, m := range []string{"Page.enable", "Network.enable", "Runtime.enable", "Log.enable"} {
		c.call(t, session, m, nil)
	}
	c.events = nil
	u := (&url.URL{Scheme: "file", Path: filepath.Join(root, filepath.FromSlash(page))}).String()
	c.call(t, session, "Page.navigate", map[string]any{"url": u})
	c.waitFor(t, session, "Page.loadEventFired")
	c.settle(500 * time.Millisecond)

	requests := 0
	for _, e := range c.events {
		if e["sessionId"] != session {
			continue
		}
		p, _ := e["params"].(map[string]any)
		switch e["method"] {
		case "Network.requestWillBeSent":
			requests++
			req, _ := p["request"].(map[string]any)
			if u, _ := req["url"].(string); !inside(root, u) {
				problems = append(problems, "a request leaves the site: "+u)
			}
		case "Runtime.consoleAPICalled":
			if typ := p["type"]; typ == "error" || typ == "assert" {
				problems = append(problems, fmt.Sprintf("console.%s: %v", typ, p["args"]))
			}
		case "Runtime.exceptionThrown":
			d, _ := p["exceptionDetails"].(map[string]any)
			ex, _ := d["exception"].(map[string]any)
			problems = append(problems, fmt.Sprintf("exception: %v %v", d["text"], ex["description"]))
		case "Log.entryAdded":
			if entry, _ := p["entry"].(map[string]any); entry["level"] == "error" {
				problems = append(problems, fmt.Sprintf("logged: %v", entry["text"]))
			}
		}
	}
	if requests == 0 {
		problems = append(problems, "no request seen: the page itself was not loaded, or the check sees nothing")
	}

	res := c.call(t, session, "Runtime.evaluate", map[string]any{"returnByValue": true,
		"expression": `JSON.stringify([document.title, Array.from(document.querySelectorAll("a[href]"), a => a.href)])`})
	var got []any
	if r, _ := res["result"].(map[string]any); r != nil {
		s, _ := r["value"].(string)
		json.Unmarshal([]byte(s), &got)
	}
	if len(got) != 2 {
		return append(problems, fmt.Sprintf("could not read the page's links: %v", res))
	}
	if title, _ := got[0].(string); title == "" {
		problems = append(problems, "the page has no title: not rendered?")
	}
	links, _ := got[1].([]any)
	if len(links) < 3 {
		problems = append(problems, fmt.Sprintf("%d links; every page links to the book's other pages", len(links)))
	}
	for _, l := range links {
		s, _ := l.(string)
		if !inside(root, s) {
			problems = append(problems, "link "+s+" is not a file of the site")
			continue
		}
		u, _ := url.Parse(s)
		if fi, err := os.Stat(u.Path); err != nil || fi.IsDir() {
			problems = append(problems, "link "+s+" resolves to no file")
		}
	}
	return problems
}

// inside says whether a URL is a file under root (about:srcdoc and
// about:blank, which load nothing, count as inside).
func inside(root, raw string) bool {
	if raw == "about:srcdoc" || raw == "about:blank" {
		return true
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" || u.Host != "" {
		return false
	}
	rel, err := filepath.Rel(root, filepath.Clean(u.Path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
