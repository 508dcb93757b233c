package reports

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
)

// porcupine's page is not byte-stable (porcupine iterates a map), so the
// golden files hold the report with the iframe's srcdoc replaced by a
// placeholder; TestHTMLPorcupine checks that part on its own. The srcdoc
// value is attribute-escaped, so it holds no double quote.
var srcdoc = regexp.MustCompile(`srcdoc="[^"]*"`)

func normalise(html []byte) []byte {
	return srcdoc.ReplaceAll(html, []byte(`srcdoc="(porcupine's page)"`))
}

func writeHTML(t *testing.T, o *scenarios.Outcome) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestHTMLGolden(t *testing.T) {
	cases := []struct {
		file    string
		outcome func(*testing.T) *scenarios.Outcome
	}{
		{"del-race.html.golden", func(t *testing.T) *scenarios.Outcome { return builtin(t, "del-race") }},
		{"node-restart.html.golden", nodeRestart},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			html := writeHTML(t, c.outcome(t))
			if n := len(srcdoc.FindAll(html, -1)); n != 1 {
				t.Fatalf("%d srcdoc attributes, want 1", n)
			}
			golden(t, c.file, normalise(html))
		})
	}
}

// The report needs no network: no scripts, styles, images or frames from
// anywhere, in our part or in porcupine's.
func TestHTMLSelfContained(t *testing.T) {
	html := string(writeHTML(t, builtin(t, "del-race")))
	page := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&amp;", "&").Replace(html)
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<(script|img|iframe|link|source|embed|object)\b[^>]*\b(src|href|data)\s*=`),
		regexp.MustCompile(`(?i)url\(\s*['"]?(https?:)?//`),
		regexp.MustCompile(`(?i)@import`),
		regexp.MustCompile(`(?i)\bfetch\(|XMLHttpRequest`),
	} {
		if m := bad.FindString(page); m != "" {
			t.Errorf("the report loads something: %q", m)
		}
	}
}

func TestHTMLPorcupine(t *testing.T) {
	html := string(writeHTML(t, builtin(t, "del-race")))
	m := srcdoc.FindString(html)
	for _, want := range []string{"&lt;!doctype html&gt;", "&lt;script&gt;", "c1 and c2 both hold"} {
		if !strings.Contains(m, want) {
			t.Errorf("porcupine's page lacks %q", want)
		}
	}
	// The escaped page holds no raw markup that could end the attribute.
	if strings.ContainsAny(m[len(`srcdoc="`):len(m)-1], `<>"`) {
		t.Error("porcupine's page is not escaped")
	}
}

func TestHTMLContent(t *testing.T) {
	html := string(writeHTML(t, builtin(t, "del-race")))
	for _, want := range []string{
		`<svg class="timeline"`, `class="st-holding overlap"`, `class="cmd witness"`, "<title>", // hover details
		"The race the Redis SETNX page", // the narrative
		"SETNX lock.foo 1767225609",     // the trace
		`<span class="verdict bad">unsafe</span>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// browser finds a headless-capable Chromium on PATH.
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestHTMLInChromium loads the report in headless Chromium, when one is
// installed, and checks the timeline was rendered into the DOM.
func TestHTMLInChromium(t *testing.T) {
	bin := browser()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH")
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, writeHTML(t, builtin(t, "del-race")), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--virtual-time-budget=2000"}
	out, err := exec.CommandContext(ctx, bin, append(args, "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Skipf("%s could not run here: %v", bin, err)
	}
	dom := string(out)
	for _, want := range []string{`<svg class="timeline"`, `class="st-holding overlap"`, `class="lane-label"`, "<iframe"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.CommandContext(ctx, bin, append(args, "--window-size=1400,1600", "--screenshot="+shot, "file://"+page)...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Errorf("screenshot missing or blank: %v", err)
	}
}
